/// A job row as stored, for inspection.
package struct JobRecord: Sendable, Hashable {
    package var id: JobID
    package var queue: String
    package var kind: String
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
}

/// How many jobs of one queue are in each state.
package struct QueueCounts: Sendable, Hashable {
    package var queue: String
    package var counts: [JobState: Int]

    /// The number of jobs in `state` (0 when none).
    package subscript(state: JobState) -> Int { counts[state] ?? 0 }
}

/// One queue's settings, job counts and throttle state, for status displays.
package struct QueueStatus: Sendable, Hashable {
    package var configuration: QueueConfiguration
    package var counts: QueueCounts
    /// When the throttle or rate limit next lets a job start (milliseconds since 1970); nil when
    /// nothing holds the queue back.
    package var nextStartAt: Int64?
}
