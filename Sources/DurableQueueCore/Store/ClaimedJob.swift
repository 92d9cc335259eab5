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
///
/// A value whose fields live in one shared, copy-on-write box: a claimed job is copied about a
/// dozen times on its way from the claim to its ending (the engine's state, the attempt, the
/// recorder), and copying its sixteen fields each time cost 4,000 instructions a drained job
/// (callgrind); a copy now retains the box, and a change copies the fields first if they are shared.
package struct ClaimedJob: Sendable, Hashable {
    /// The fields.
    private struct Fields: Hashable {
        var id: JobID
        var queue: String
        var kind: String
        var version: Int
        var input: String
        var priority: Priority
        var attempt: Int
        var maxAttempts: Int?
        var retryPolicy: String?
        var timeoutMilliseconds: Int64?
        var checkpoint: [UInt8]?
        var runAt: Int64
        var leaseExpiresAt: Int64
        var throttleIntervalMilliseconds: Int64
        var progressedAttempts: Int
        var traceContext: String?
        var mayHaveSteps: Bool
    }

    /// The box of the fields, shared by copies until one of them changes a field.
    private final class Box: @unchecked Sendable {
        // Unchecked: a box is changed only while one value holds it (`isKnownUniquelyReferenced`),
        // and a value that crosses to another thread is a copy sharing an unchanging box.
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var box: Box

    /// The fields to change: copied into a box of this value's own first if another value shares them.
    private var changing: Fields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    package var id: JobID {
        get { box.fields.id }
        set { changing.id = newValue }
    }
    package var queue: String {
        get { box.fields.queue }
        set { changing.queue = newValue }
    }
    package var kind: String {
        get { box.fields.kind }
        set { changing.kind = newValue }
    }
    /// The version of the job type that stored ``input`` (``Job/version``).
    package var version: Int {
        get { box.fields.version }
        set { changing.version = newValue }
    }
    /// The input, as JSON text.
    package var input: String {
        get { box.fields.input }
        set { changing.input = newValue }
    }
    package var priority: Priority {
        get { box.fields.priority }
        set { changing.priority = newValue }
    }
    /// The attempt now starting, from 1.
    package var attempt: Int {
        get { box.fields.attempt }
        set { changing.attempt = newValue }
    }
    /// nil means unlimited.
    package var maxAttempts: Int? {
        get { box.fields.maxAttempts }
        set { changing.maxAttempts = newValue }
    }
    /// The retry policy as JSON text, or nil for the engine's default.
    package var retryPolicy: String? {
        get { box.fields.retryPolicy }
        set { changing.retryPolicy = newValue }
    }
    package var timeoutMilliseconds: Int64? {
        get { box.fields.timeoutMilliseconds }
        set { changing.timeoutMilliseconds = newValue }
    }
    /// What an earlier attempt saved to resume from.
    package var checkpoint: [UInt8]? {
        get { box.fields.checkpoint }
        set { changing.checkpoint = newValue }
    }
    /// When the job was due, in milliseconds since 1970.
    package var runAt: Int64 {
        get { box.fields.runAt }
        set { changing.runAt = newValue }
    }
    /// When the lease ends unless renewed, in milliseconds since 1970.
    package var leaseExpiresAt: Int64 {
        get { box.fields.leaseExpiresAt }
        set { changing.leaseExpiresAt = newValue }
    }
    /// The throttle interval to keep after this job, in milliseconds (0: none).
    package var throttleIntervalMilliseconds: Int64 {
        get { box.fields.throttleIntervalMilliseconds }
        set { changing.throttleIntervalMilliseconds = newValue }
    }
    /// Earlier attempts that saved a new checkpoint: they do not count against ``maxAttempts``.
    package var progressedAttempts: Int {
        get { box.fields.progressedAttempts }
        set { changing.progressedAttempts = newValue }
    }
    /// The enqueuer's trace context (see ``NewJob/traceContext``).
    package var traceContext: String? {
        get { box.fields.traceContext }
        set { changing.traceContext = newValue }
    }
    /// Whether the job may have recorded durable steps: false when the store knows it has none (a
    /// job that never ran before), which spares its first step a read of them.
    package var mayHaveSteps: Bool {
        get { box.fields.mayHaveSteps }
        set { changing.mayHaveSteps = newValue }
    }

    /// The attempt this claim started.
    package var attemptID: AttemptID { AttemptID(job: id, number: attempt) }

    package init(id: JobID, queue: String, kind: String, version: Int = 1, input: String, priority: Priority, attempt: Int, maxAttempts: Int?, retryPolicy: String?, timeoutMilliseconds: Int64?, checkpoint: [UInt8]?, runAt: Int64, leaseExpiresAt: Int64, throttleIntervalMilliseconds: Int64 = 0, progressedAttempts: Int = 0, traceContext: String? = nil) {
        box = Box(
            Fields(
                id: id, queue: queue, kind: kind, version: version, input: input, priority: priority, attempt: attempt, maxAttempts: maxAttempts,
                retryPolicy: retryPolicy, timeoutMilliseconds: timeoutMilliseconds, checkpoint: checkpoint, runAt: runAt,
                leaseExpiresAt: leaseExpiresAt, throttleIntervalMilliseconds: throttleIntervalMilliseconds,
                progressedAttempts: progressedAttempts, traceContext: traceContext, mayHaveSteps: true))
    }

    package static func == (lhs: ClaimedJob, rhs: ClaimedJob) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
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
    /// The stored input could not be read (``JobState/parked``): the job is parked with this
    /// error, and the attempt does not count.
    case parked(JobFailure)

    /// The handler's failure, if it failed.
    package var failure: JobFailure? {
        switch self {
        case .failed(let failure), .retry(let failure, _), .parked(let failure): failure
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
    /// What the history's reason adds if this ending ends the job (``ResolvedEnding/noting(_:)``):
    /// the recorded steps the attempt never asked for.
    package var note: String?

    package init(_ attempt: AttemptID, owner: String, outcome: AttemptOutcome, note: String? = nil) {
        self.attempt = attempt
        self.owner = owner
        self.outcome = outcome
        self.note = note
    }

    /// The job.
    package var id: JobID { attempt.job }
}
