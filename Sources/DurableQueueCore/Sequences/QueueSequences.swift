/// What a change of a queue's settings does, written once for every store: the settings row, then
/// what the change implies for the queue's jobs and starts.
package enum QueueSequences {
    /// Creates queue `queue` (validated by the caller, before the transaction) or replaces its
    /// settings, all but an existing queue's suspension (which ``suspend(_:queue:in:now:)`` changes).
    package static func configure(_ queue: QueueConfiguration, in rows: any QueueRows, now: Int64) async throws {
        let previous = try await rows.lockedQueue(named: queue.name)
        var settings = queue
        settings.isPaused = previous?.isPaused ?? queue.isPaused
        try await save(settings, replacing: previous, in: rows, now: now)
    }

    /// Applies `change` to queue `name`'s settings (the defaults for a queue with no row).
    ///
    /// - Returns: The settings now in force.
    /// - Throws: `invalidArgument` if `change` renames the queue or leaves a setting out of range.
    package static func update(
        _ name: String, in rows: any QueueRows, now: Int64, _ change: @Sendable (inout QueueConfiguration) -> Void
    ) async throws -> QueueConfiguration {
        let previous = try await rows.lockedQueue(named: name)
        var settings = previous ?? QueueConfiguration(name)
        change(&settings)
        guard settings.name == name else {
            throw DurableQueueError.invalidArgument("queue name", "an update cannot rename queue '\(name)'")
        }
        try settings.validate()
        try await save(settings, replacing: previous, in: rows, now: now)
        return settings
    }

    /// Suspends (`true`) or resumes queue `queue`.
    ///
    /// - Throws: `invalidArgument` when no such queue exists.
    package static func suspend(_ suspended: Bool, queue: String, in rows: any QueueRows, now: Int64) async throws {
        guard try await rows.markSuspended(suspended, queue: queue, now: now) else {
            throw DurableQueueError(.invalidArgument, "no queue is named '\(queue)'", queue: queue)
        }
    }

    /// Writes `queue`'s settings over `previous` (nil: a new queue) and what the change implies:
    /// the key overrides when they changed; the keys' start limits forgotten when none is left;
    /// the unfinished jobs re-ordered when the mode changed; the fair time moved past every job
    /// there when the queue becomes fair; the waiting jobs' interval when the throttle's changed
    /// (as its mutability says); the next start freed without throttle or rate limit, and the
    /// recorded starts forgotten without a rate limit.
    private static func save(
        _ queue: QueueConfiguration, replacing previous: QueueConfiguration?, in rows: any QueueRows, now: Int64
    ) async throws {
        let name = queue.name
        let throttle = queue.throttle ?? Throttle(.zero)
        try await rows.saveQueueRow(queue, now: now)
        if previous?.keyOverrides != queue.keyOverrides { try await rows.replaceKeyOverrides(of: queue) }
        if queue.endsKeyStartLimits(after: previous) { try await rows.resetKeyStarts(ofQueue: name) }
        if let previous, previous.mode != queue.mode { try await rows.flipOrderKeys(ofQueue: name) }
        if queue.fairness == .byKey && previous?.fairness != .byKey {
            // The first tags follow every job already there.
            let (latest, current) = try await rows.latestOrderKeyAndFairTime(ofQueue: name)
            try await rows.setFairTime(FairOrder.virtualTime(current, becomingFairAfter: latest), ofQueue: name)
        }
        if let previous, (previous.throttle?.interval ?? .zero) != throttle.interval, throttle.mutability != .none {
            try await rows.setWaitingJobsInterval(
                throttle.interval.milliseconds, onlyQueueDefaults: throttle.mutability == .defaultOnly, ofQueue: name)
        }
        if queue.throttle == nil && queue.rateLimit == nil { try await rows.clearNextStart(ofQueue: name) }
        if queue.rateLimit == nil { try await rows.forgetStarts(ofQueue: name) }
    }
}
