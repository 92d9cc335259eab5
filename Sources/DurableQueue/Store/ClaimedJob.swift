/// One attempt of one job: the fencing token of everything the attempt writes.
///
/// A job's attempt number only grows while the job runs again and again, so a report carrying an
/// older number comes from an attempt that has been taken over (its lease expired and another
/// attempt was claimed): the store accepts a write only while the row shows this very attempt running.
package struct AttemptID: Sendable, Hashable, CustomStringConvertible {
    /// The job.
    package var job: JobID
    /// The attempt's number, from 1.
    package var number: Int

    package init(job: JobID, number: Int) {
        self.job = job
        self.number = number
    }

    package var description: String { "job \(job) attempt \(number)" }
}

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
    /// Earlier attempts that saved a new checkpoint: they do not count against ``maxAttempts``.
    package var progressedAttempts: Int = 0
    /// The enqueuer's trace context (see ``NewJob/traceContext``).
    package var traceContext: String?
    /// Whether the job may have recorded durable steps: false when the store knows it has none (a
    /// job that never ran before), which spares its first step a read of them.
    package var mayHaveSteps = true

    /// The attempt this claim started.
    package var attemptID: AttemptID { AttemptID(job: id, number: attempt) }

    package init(id: JobID, queue: String, kind: String, input: String, priority: Priority, attempt: Int, maxAttempts: Int?, retryPolicy: String?, timeoutMilliseconds: Int64?, checkpoint: [UInt8]?, runAt: Int64, leaseExpiresAt: Int64, throttleIntervalMilliseconds: Int64 = 0, progressedAttempts: Int = 0, traceContext: String? = nil) {
        self.id = id
        self.queue = queue
        self.kind = kind
        self.input = input
        self.priority = priority
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.retryPolicy = retryPolicy
        self.timeoutMilliseconds = timeoutMilliseconds
        self.checkpoint = checkpoint
        self.runAt = runAt
        self.leaseExpiresAt = leaseExpiresAt
        self.throttleIntervalMilliseconds = throttleIntervalMilliseconds
        self.progressedAttempts = progressedAttempts
        self.traceContext = traceContext
    }
}

/// How an attempt ended, as the worker reports it.
package enum AttemptOutcome: Sendable, Hashable {
    /// The handler returned this output (JSON text).
    case succeeded(output: String)
    /// The handler failed and must not run again.
    case failed(JobFailure)
    /// The handler failed and may run again `after` milliseconds (the backoff), counted from the
    /// time the store records the failure. The job fails instead if it has used all its attempts,
    /// and is cancelled instead if a cancel was requested.
    case retry(JobFailure, after: Int64)
    /// The handler stopped because its cancel was requested.
    case cancelled(reason: String)
    /// The handler asked to run again `after` milliseconds (a ``JobSnooze``), counted from the time
    /// the store records it: the attempt does not count.
    case snoozed(after: Int64)
    /// The handler sleeps durably until `until` (``JobContext/sleep(for:)``): the job waits
    /// `scheduled`, and the attempt does not count; its steps done are not run again.
    case sleeping(until: Int64)

    /// The handler's failure, if it failed.
    package var failure: JobFailure? {
        switch self {
        case .failed(let failure), .retry(let failure, _): failure
        case .succeeded, .cancelled, .snoozed, .sleeping: nil
        }
    }
}

/// One attempt's end to record: which attempt, under whose lease, and how it ended.
package struct FinishedAttempt: Sendable, Hashable {
    /// The job and attempt number; a report for an attempt the row no longer shows running is ignored.
    package var attempt: AttemptID
    /// The worker that claimed the job; a report from a worker that lost its lease is ignored.
    package var owner: String
    package var outcome: AttemptOutcome

    package init(_ attempt: AttemptID, owner: String, outcome: AttemptOutcome) {
        self.attempt = attempt
        self.owner = owner
        self.outcome = outcome
    }

    /// The job.
    package var id: JobID { attempt.job }
}
