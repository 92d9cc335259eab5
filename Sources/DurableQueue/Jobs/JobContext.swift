import Logging

/// What a running attempt knows about its job, and how it reports progress.
public struct JobContext: Sendable {
    /// The job's id.
    public let id: JobID
    /// The attempt now running, from 1.
    public let attempt: Int
    /// The most attempts allowed; nil means unlimited.
    public let maxAttempts: Int?
    /// The name of the queue the job is on.
    public let queue: String
    /// The job's priority; jobs it enqueues inherit it unless their options set another.
    public let priority: Priority
    /// The bytes an earlier attempt saved with ``saveCheckpoint(_:)``, to resume from; nil on a fresh start.
    public let checkpoint: [UInt8]?
    /// A logger carrying `job.id`, `job.kind`, `job.attempt` and `queue.name` metadata.
    public let logger: Logger
    let save: @Sendable (_ progress: Double?, _ checkpoint: [UInt8]?) async throws -> Void
    /// Hands the attempt off (see ``handOff(to:reference:deadline:start:)``); always throws.
    let handOffAttempt:
        @Sendable (_ carrier: String, _ reference: String, _ deadline: Duration?, _ start: @Sendable () async throws -> Void)
            async throws -> Never
    /// The queue file the job runs from, for follow-up jobs.
    let jobQueue: JobQueue

    /// Records how far the attempt has come, from 0 to 1, in the job's row.
    ///
    /// - Throws: `invalidArgument` outside 0…1, or a storage error.
    public func saveProgress(_ fraction: Double) async throws {
        try await save(fraction, nil)
    }

    /// Stores `bytes` in the job's row: a later attempt (after a crash or a retry) receives them as
    /// ``checkpoint`` and can resume from there. Returns after the bytes are committed.
    public func saveCheckpoint(_ bytes: [UInt8]) async throws {
        try await save(nil, bytes)
    }

    /// Records progress and checkpoint in one commit.
    public func save(progress: Double, checkpoint: [UInt8]) async throws {
        try await save(progress, checkpoint)
    }

    /// Ends this attempt as *handed off* to `carrier`, which goes on with the work outside the
    /// process (a background transfer) and reports its end later with
    /// ``JobQueue/completeHandOff(job:attempt:output:)`` or ``JobQueue/failHandOff(job:attempt:error:retryable:)``,
    /// naming this job's ``id`` and ``attempt``.
    ///
    /// The hand-off is committed first: the job is `handed_off` (history: `handed off to …`), holds
    /// no worker slot and no lease, and only a report for this attempt ends it. Then `start` runs:
    /// it starts the carrier's transfer (which may end and report at once). If `start` throws,
    /// nothing carries the attempt, and it ends with that error by the job's retry policy. This call
    /// never returns: it throws to end the handler, which should let the error through.
    ///
    /// ```swift
    /// let task = session.downloadTask(with: request)
    /// task.taskDescription = "\(context.id):\(context.attempt)"
    /// try await context.handOff(to: "downloads", reference: task.taskDescription!, deadline: .seconds(86_400)) {
    ///     task.resume()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - carrier: The carrier's name (see ``HandOffCarrier``); register the carrier with
    ///     ``JobQueue/register(carrier:)`` so that lost transfers are found at start-up.
    ///   - reference: What the carrier calls the transfer.
    ///   - deadline: How long the hand-off may last: after that, the attempt counts as failed and the
    ///     job retries or fails by its policy. Nil (the default): no limit.
    ///   - start: Starts the transfer, after the hand-off is committed.
    /// - Throws: Always: the handler's attempt has ended (a cancel requested meanwhile ends the job as
    ///   `cancelled`, and `start` does not run); or a storage error, or the lease was lost (nothing
    ///   was handed off).
    public func handOff(
        to carrier: String, reference: String, deadline: Duration? = nil, start: @escaping @Sendable () async throws -> Void
    ) async throws -> Never {
        try await handOffAttempt(carrier, reference, deadline, start)
    }

    /// Enqueues a follow-up job, committed before this returns: on this job's queue with default
    /// options when `options` is nil, else where `options` says (any named queue). It has this job's
    /// ``priority`` unless `options` sets another.
    ///
    /// The follow-up is independent of this attempt: if the attempt later fails and is retried, the
    /// retry enqueues again. Give the follow-up a ``EnqueueOptions/uniqueKey`` to enqueue it once.
    ///
    /// For example, to page through an API on a throttled queue:
    /// ```swift
    /// if let next = page.next { _ = try await context.enqueue(FetchPage.self, next) }
    /// ```
    @discardableResult
    public func enqueue<J: Job>(_ type: J.Type, _ input: J.Input, options: EnqueueOptions? = nil) async throws -> JobHandle<J> {
        try await jobQueue.enqueue(type, input, options: options ?? EnqueueOptions(queue: queue), inheriting: priority)
    }

    /// `path` as the queue stores it, relative to a base that moves with the app's container; see
    /// ``JobQueue/storedPath(_:)``. For paths a handler keeps in its checkpoint.
    public func storedPath(_ path: String) -> String {
        jobQueue.storedPath(path)
    }

    /// The path that a ``storedPath(_:)`` names now; see ``JobQueue/resolvedPath(_:)``.
    public func resolvedPath(_ stored: String) throws -> String {
        try jobQueue.resolvedPath(stored)
    }

    /// Enqueues a sequence or group (see ``JobQueue/enqueue(_:)``), committed before this returns;
    /// its jobs have this job's ``priority`` unless their options or their group set another.
    @discardableResult
    public func enqueue(_ composition: Composition) async throws -> GroupHandle {
        try await jobQueue.enqueue(composition, inheriting: priority)
    }
}
