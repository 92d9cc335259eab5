/// A job row as stored, for inspection.
package struct JobRecord: Sendable, Hashable {
    package var id: JobID
    package var queue: String
    package var kind: String
    /// The version of its job type that stored its input (``Job/version``).
    package var version: Int
    package var state: JobState
    package var priority: Priority
    package var runAt: Int64
    package var attempts: Int
    package var maxAttempts: Int?
    package var retryPolicy: String?
    package var timeoutMilliseconds: Int64?
    package var uniqueKey: String?
    package var cancelRequested: Bool
    package var leaseOwner: String?
    package var leaseExpiresAt: Int64?
    package var input: String
    package var output: String?
    package var error: JobFailure?
    package var progress: Double?
    package var checkpoint: [UInt8]?
    package var createdAt: Int64
    package var updatedAt: Int64
    package var startedAt: Int64?
    package var finishedAt: Int64?
    package var tags: [String]
    /// The throttle interval kept after this job, in milliseconds (0: none).
    package var throttleIntervalMilliseconds: Int64
    /// The partition its queue's partition limit counts it in; nil for none.
    package var partitionKey: String?
    /// The sequence or group it is a step of; nil for none.
    package var group: GroupID?
    /// Where its latest attempt was handed off, if it ever was (see ``JobState/handedOff``).
    package var handOff: HandOffTarget?
    /// The signal its latest wait was for, if it ever waited (see ``JobState/waiting``), and when
    /// that wait times out (milliseconds since 1970; nil: never).
    package var waitingFor: String?
    package var waitDeadline: Int64?

    package init(id: JobID, queue: String, kind: String, state: JobState, priority: Priority, runAt: Int64, attempts: Int, maxAttempts: Int?, retryPolicy: String?, timeoutMilliseconds: Int64?, uniqueKey: String?, cancelRequested: Bool, leaseOwner: String?, leaseExpiresAt: Int64?, input: String, output: String?, error: JobFailure?, progress: Double?, checkpoint: [UInt8]?, createdAt: Int64, updatedAt: Int64, startedAt: Int64?, finishedAt: Int64?, tags: [String], throttleIntervalMilliseconds: Int64, partitionKey: String?, group: GroupID?, handOff: HandOffTarget? = nil, waitingFor: String? = nil, waitDeadline: Int64? = nil, version: Int = 1) {
        self.id = id
        self.queue = queue
        self.kind = kind
        self.version = version
        self.state = state
        self.priority = priority
        self.runAt = runAt
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.retryPolicy = retryPolicy
        self.timeoutMilliseconds = timeoutMilliseconds
        self.uniqueKey = uniqueKey
        self.cancelRequested = cancelRequested
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.input = input
        self.output = output
        self.error = error
        self.progress = progress
        self.checkpoint = checkpoint
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.tags = tags
        self.throttleIntervalMilliseconds = throttleIntervalMilliseconds
        self.partitionKey = partitionKey
        self.group = group
        self.handOff = handOff
        self.waitingFor = waitingFor
        self.waitDeadline = waitDeadline
    }
}

/// One row of a job's history: a state change, when, and why.
package struct JobEvent: Sendable, Hashable {
    package var jobID: JobID
    /// Milliseconds since 1970.
    package var at: Int64
    /// nil for the event that created the job.
    package var from: JobState?
    package var to: JobState
    /// The job's attempt count after the change.
    package var attempt: Int
    package var reason: String?
    package var worker: String?

    package init(jobID: JobID, at: Int64, from: JobState?, to: JobState, attempt: Int, reason: String?, worker: String?) {
        self.jobID = jobID
        self.at = at
        self.from = from
        self.to = to
        self.attempt = attempt
        self.reason = reason
        self.worker = worker
    }
}

/// How many jobs of one queue are in each state.
package struct QueueCounts: Sendable, Hashable {
    package var queue: String
    package var counts: [JobState: Int]

    /// The number of jobs in `state` (0 when none).
    package subscript(state: JobState) -> Int { counts[state] ?? 0 }

    package init(queue: String, counts: [JobState: Int]) {
        self.queue = queue
        self.counts = counts
    }
}

/// How many unfinished jobs of one partition key of a queue are in each state.
package struct KeyCounts: Sendable, Hashable {
    /// The key; nil for the queue's jobs without one.
    package var key: String?
    package var counts: [JobState: Int]
    /// The key's next allowed start as stored (its throttle or rate limit; ms since 1970), which
    /// may have passed; nil when none was stored.
    package var nextStartAt: Int64?

    /// The number of jobs in `state` (0 when none).
    package subscript(state: JobState) -> Int { counts[state] ?? 0 }

    package init(key: String?, counts: [JobState: Int], nextStartAt: Int64? = nil) {
        self.key = key
        self.counts = counts
        self.nextStartAt = nextStartAt
    }

    /// `counts` by key as a list, with the keys' stored next starts `nextStarts`: the jobs without
    /// a key first, then by key.
    package static func sorted(_ counts: [String?: [JobState: Int]], nextStarts: [String: Int64] = [:]) -> [KeyCounts] {
        counts.map { KeyCounts(key: $0.key, counts: $0.value, nextStartAt: $0.key.flatMap { nextStarts[$0] }) }
            .sorted { ($0.key == nil ? 0 : 1, $0.key ?? "") < ($1.key == nil ? 0 : 1, $1.key ?? "") }
    }
}

/// One queue's settings, job counts and throttle state, for status displays.
package struct QueueStatus: Sendable, Hashable {
    package var configuration: QueueConfiguration
    package var counts: QueueCounts
    /// When the throttle or rate limit next lets a job start (milliseconds since 1970); nil when
    /// nothing holds the queue back.
    package var nextStartAt: Int64?

    package init(configuration: QueueConfiguration, counts: QueueCounts, nextStartAt: Int64?) {
        self.configuration = configuration
        self.counts = counts
        self.nextStartAt = nextStartAt
    }
}
