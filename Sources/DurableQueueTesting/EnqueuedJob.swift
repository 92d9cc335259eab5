import DurableQueue
import Foundation

/// A job in a queue, with its input decoded: what a test asserts on, as Oban.Testing's
/// `assert_enqueued` or rivertest's `RequireInserted` do.
public struct EnqueuedJob<J: Job>: Sendable {
    /// The job's id.
    public let id: JobID
    /// The queue it is on.
    public let queue: String
    /// Its state now.
    public let state: JobState
    /// Its priority.
    public let priority: Priority
    /// When it is (or was) due.
    public let runAt: Date
    /// Attempts started so far.
    public let attempts: Int
    /// Its tags, sorted.
    public let tags: [String]
    /// Its input.
    public let input: J.Input
}

extension JobQueue {
    /// The jobs of type `J` in `states` (default: not finished), on `queue` if given, oldest first,
    /// with their inputs decoded.
    ///
    /// For example:
    /// ```swift
    /// try await signUp(user, queue: queue)
    /// let mails = try await queue.enqueuedJobs(SendWelcome.self)
    /// #expect(mails.map(\.input.address) == ["ada@example.com"])
    /// ```
    /// - Throws: A storage error, or a decoding error for an input that is not `J.Input`.
    public func enqueuedJobs<J: Job>(
        _ type: J.Type, queue: String? = nil, states: Set<JobState> = [.scheduled, .pending, .blocked, .running]
    ) async throws -> [EnqueuedJob<J>] {
        let filter = JobFilter(states: states, queues: queue.map { [$0] }, kinds: [J.name], limit: .max, order: .oldestFirst)
        return try await reader.jobs(filter).map { record in
            EnqueuedJob(
                id: record.id, queue: record.queue, state: record.state, priority: record.priority,
                runAt: Date(timeIntervalSince1970: Double(record.runAt) / 1000), attempts: record.attempts, tags: record.tags,
                input: try JobCodec.decode(J.Input.self, from: record.input))
        }
    }
}
