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
