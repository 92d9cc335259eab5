extension JobQueue {
    /// The named queues of the store: their settings, and pausing them (see ``Queues``).
    public var queues: Queues { Queues(jobQueue: self) }

    /// The named queues of the store, shared by every process on it: create or change their
    /// settings (concurrency, throttles, rate limits, key limits, aging, order) and pause them.
    ///
    /// For example:
    /// ```swift
    /// try await queue.queues.configure(QueueConfiguration("github", concurrencyLimit: 2))
    /// try await queue.queues.update("github") { $0.throttle = Throttle(.seconds(1)) }
    /// try await queue.queues.pause("github")
    /// ```
    public struct Queues: Sendable {
        let jobQueue: JobQueue
    }
}

extension JobQueue.Queues {
    /// Creates or updates a named queue's settings, shared by every process on the file.
    ///
    /// Every setting is replaced by `queue`'s (a setting left at its default goes back to the
    /// default), except ``QueueConfiguration/isPaused``: it applies only when this call creates
    /// the queue, and ``pause(_:)`` / ``resume(_:)`` change it later. To change some
    /// settings and keep the rest, use ``update(_:_:)``.
    ///
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    public func configure(_ queue: QueueConfiguration) async throws {
        try await jobQueue.store.configure(queue, now: jobQueue.now)
        jobQueue.workArrived()
    }

    /// Changes some settings of a queue and keeps the others, in one transaction, so that two
    /// processes changing different settings at once both have their way.
    ///
    /// `change` gets the settings in force (the defaults for a queue nobody configured) and sets
    /// what should differ; ``QueueConfiguration/isPaused`` included.
    ///
    /// For example:
    /// ```swift
    /// try await queue.queues.update("github") { $0.throttle = Throttle(.seconds(1)) }
    /// ```
    /// - Returns: The settings now in force.
    /// - Throws: `invalidArgument` if `change` renames the queue or sets a value out of range
    ///   (nothing changed), or a storage error.
    @discardableResult
    public func update(
        _ queue: String, _ change: @escaping @Sendable (inout QueueConfiguration) -> Void
    ) async throws -> QueueConfiguration {
        let now = jobQueue.now
        let settings = try await jobQueue.store.updateQueue(named: queue, now: now, change)
        jobQueue.workArrived()
        return settings
    }

    /// The settings of `queue` as stored, or nil if the file has no such queue (nobody configured it
    /// and no job was enqueued on it; such a queue has the defaults of ``QueueConfiguration``).
    ///
    /// - Throws: A storage error.
    public func configuration(of queue: String) async throws -> QueueConfiguration? {
        try await jobQueue.store.queue(named: queue)
    }

    /// Stops starting jobs of `queue` (durably, for every process); running jobs finish. The same
    /// verb as `durableq pause`, the dashboard's Pause and ``JobQueue/Schedules/pause(_:)``.
    ///
    /// - Throws: `invalidArgument` when no queue has that name.
    public func pause(_ queue: String) async throws {
        try await jobQueue.store.setSuspended(true, queue: queue, now: jobQueue.now)
    }

    /// Lets `queue` start jobs again.
    ///
    /// - Throws: `invalidArgument` when no queue has that name.
    public func resume(_ queue: String) async throws {
        try await jobQueue.store.setSuspended(false, queue: queue, now: jobQueue.now)
        jobQueue.workArrived()
    }
}
