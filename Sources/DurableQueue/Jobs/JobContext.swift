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
    /// The bytes an earlier attempt saved with ``saveCheckpoint(_:)``, to resume from; nil on a fresh start.
    public let checkpoint: [UInt8]?
    /// A logger carrying `job.id`, `job.kind`, `job.attempt` and `queue.name` metadata.
    public let logger: Logger
    let save: @Sendable (_ progress: Double?, _ checkpoint: [UInt8]?) async throws -> Void

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
}
