/// A job a worker has just claimed: it is `running` under the worker's lease.
package struct ClaimedJob: Sendable, Hashable {
    package var id: JobID
    package var queue: String
    package var kind: String
    /// The input, as JSON text.
    package var input: String
    package var priority: Priority
    /// The attempt now starting, from 1.
    package var attempt: Int
    /// nil means unlimited.
    package var maxAttempts: Int?
    /// The retry policy as JSON text, or nil for the engine's default.
    package var retryPolicy: String?
    package var timeoutMilliseconds: Int64?
    /// What an earlier attempt saved to resume from.
    package var checkpoint: [UInt8]?
    /// When the job was due, in milliseconds since 1970.
    package var runAt: Int64
    /// When the lease ends unless renewed, in milliseconds since 1970.
    package var leaseExpiresAt: Int64
    /// The throttle interval to keep after this job, in milliseconds (0: none).
    package var throttleIntervalMilliseconds: Int64 = 0
}

/// How an attempt ended, as the worker reports it.
package enum AttemptOutcome: Sendable, Hashable {
    /// The handler returned this output (JSON text).
    case succeeded(output: String)
    /// The handler failed and must not run again.
    case failed(JobFailure)
    /// The handler failed and may run again at `runAt` (milliseconds since 1970). The job fails
    /// instead if it has used all its attempts, and is cancelled instead if a cancel was requested.
    case retry(JobFailure, runAt: Int64)
    /// The handler stopped because its cancel was requested.
    case cancelled(reason: String)
}

/// One attempt's end to record: which job, under whose lease, and how it ended.
package struct FinishedAttempt: Sendable, Hashable {
    package var id: JobID
    /// The worker that claimed the job; a report from a worker that lost its lease is ignored.
    package var owner: String
    package var outcome: AttemptOutcome

    package init(id: JobID, owner: String, outcome: AttemptOutcome) {
        self.id = id
        self.owner = owner
        self.outcome = outcome
    }
}
