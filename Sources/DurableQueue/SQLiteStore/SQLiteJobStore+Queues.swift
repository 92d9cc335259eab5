extension SQLiteJobStore {
    /// Creates or updates a queue's settings, shared by every process on the file.
    ///
    /// Every setting is replaced except `isPaused`, which applies only when the queue is created:
    /// an existing queue stays suspended or not (see ``setSuspended(_:queue:now:)``).
    /// Changing the mode re-orders the queue's unfinished jobs, and changing the throttle interval
    /// updates its waiting jobs as the throttle's mutability says (a scan of that queue's jobs each).
    /// Removing both throttle and rate limit lets the next job start at once.
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func configure(_ queue: QueueConfiguration, now: Int64) throws {
        try queue.validate()
        try write("configure queue '\(queue.name)'", now: now) { now in
            let previous = try queues(where: "WHERE name = ?", [queue.name]).first
            var settings = queue
            settings.isPaused = previous?.isPaused ?? queue.isPaused
            try store(settings, replacing: previous, now: now)
        }
    }

    /// Changes some settings of queue `name` (created with the defaults if it has no row), leaving
    /// the others as they are, in one transaction: `change` gets the current settings.
    ///
    /// - Returns: The settings now in force.
    /// - Throws: `invalidArgument` if `change` renames the queue or leaves a setting out of range
    ///   (nothing changed), or a storage error.
    package func updateQueue(
        named name: String, now: Int64, _ change: @escaping @Sendable (inout QueueConfiguration) -> Void
    ) throws -> QueueConfiguration {
        try write("update queue '\(name)'", now: now) { now in
            let previous = try queues(where: "WHERE name = ?", [name]).first
            var settings = previous ?? QueueConfiguration(name)
            change(&settings)
            guard settings.name == name else {
                throw DurableQueueError.invalidArgument("queue name", "an update cannot rename queue '\(name)'")
            }
            try settings.validate()
            try store(settings, replacing: previous, now: now)
            return settings
        }
    }

    /// Writes `queue`'s settings over `previous` (nil: a new queue), and applies what the change
    /// implies to its jobs and starts. Called inside a write transaction.
    private func store(_ queue: QueueConfiguration, replacing previous: QueueConfiguration?, now: Int64) throws {
        queueSettingsChanged()
        let throttle = queue.throttle ?? Throttle(.zero)
        let rate = queue.rateLimit
        try connection.execute(
            """
            INSERT INTO queues (name, mode, concurrency_limit, suspended, throttle_interval_ms, throttle_measured_from,
                                throttle_mutability, rate_limit_count, rate_limit_window_ms, aging_interval_ms, aging_limit,
                                partition_limit, fairness, key_throttle_interval_ms, key_throttle_measured_from,
                                key_rate_limit_count, key_rate_limit_window_ms, created_at, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?10, ?10)
            ON CONFLICT (name) DO UPDATE SET
                mode = excluded.mode, concurrency_limit = excluded.concurrency_limit, suspended = excluded.suspended,
                throttle_interval_ms = excluded.throttle_interval_ms,
                throttle_measured_from = excluded.throttle_measured_from,
                throttle_mutability = excluded.throttle_mutability, rate_limit_count = excluded.rate_limit_count,
                rate_limit_window_ms = excluded.rate_limit_window_ms, aging_interval_ms = excluded.aging_interval_ms,
                aging_limit = excluded.aging_limit, partition_limit = excluded.partition_limit, fairness = excluded.fairness,
                key_throttle_interval_ms = excluded.key_throttle_interval_ms,
                key_throttle_measured_from = excluded.key_throttle_measured_from,
                key_rate_limit_count = excluded.key_rate_limit_count, key_rate_limit_window_ms = excluded.key_rate_limit_window_ms,
                updated_at = excluded.updated_at
            """,
            [
                queue.name, queue.mode.rawValue, queue.concurrencyLimit, queue.isPaused,
                throttle.interval.milliseconds, throttle.measuredFrom.rawValue, throttle.mutability.rawValue,
                rate?.count ?? 0, rate?.window.milliseconds ?? 0, now, queue.aging?.every.milliseconds ?? 0,
                queue.aging?.upTo.rawValue ?? 0, queue.partitionLimit, queue.fairness.rawValue,
                queue.keyThrottle?.interval.milliseconds ?? 0, queue.keyThrottle?.measuredFrom.rawValue ?? "start",
                queue.keyRateLimit?.count ?? 0, queue.keyRateLimit?.window.milliseconds ?? 0,
            ])
        if previous?.keyOverrides != queue.keyOverrides { try storeKeyOverrides(queue) }
        if queue.endsKeyStartLimits(after: previous) {
            try connection.execute(
                """
                UPDATE partition_keys SET next_start_at = 0, end_gap_ms = 0, recent_starts = '[]'
                WHERE queue = ? AND (next_start_at > 0 OR end_gap_ms > 0)
                """, [queue.name])
        }
        knownQueues.insert(queue.name)
        knownQueueSettings.forget(queue.name)
        if let previous, previous.mode != queue.mode {
            // order_key is +id on FIFO queues and -id on LIFO queues: flip it for unfinished jobs.
            try connection.execute(
                """
                UPDATE jobs SET order_key = -order_key
                WHERE queue = ? AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                """, [queue.name])
        }
        if queue.fairness == .byKey && previous?.fairness != .byKey {
            // The first tags follow every job already there.
            let latest = try connection.scalarInt64(
                """
                SELECT max(order_key) FROM jobs
                WHERE queue = ? AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                """, [queue.name])
            let current = try connection.scalarInt64("SELECT fair_time FROM queues WHERE name = ?", [queue.name]) ?? 0
            try connection.execute(
                "UPDATE queues SET fair_time = ? WHERE name = ?",
                [FairOrder.virtualTime(current, becomingFairAfter: latest), queue.name])
        }
        let previousInterval = previous?.throttle?.interval ?? .zero
        if previous != nil, previousInterval != throttle.interval {
            try applyChangedInterval(throttle, queue: queue.name)
        }
        if queue.throttle == nil && queue.rateLimit == nil {
            try connection.execute("UPDATE queues SET next_start_at = 0 WHERE name = ?", [queue.name])
        }
        if queue.rateLimit == nil {
            try connection.execute("DELETE FROM queue_starts WHERE queue = ?", [queue.name])
        }
    }

    /// Replaces `queue`'s rows in `key_limits` with its overrides.
    private func storeKeyOverrides(_ queue: QueueConfiguration) throws {
        try connection.execute("DELETE FROM key_limits WHERE queue = ?", [queue.name])
        for (pattern, limits) in queue.keyOverrides {
            try connection.execute(
                """
                INSERT INTO key_limits (queue, pattern, concurrency_limit, throttle_interval_ms, throttle_measured_from,
                                        rate_limit_count, rate_limit_window_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    queue.name, pattern, limits.concurrencyLimit, limits.throttle?.interval.milliseconds ?? 0,
                    limits.throttle?.measuredFrom.rawValue ?? "start", limits.rateLimit?.count ?? 0,
                    limits.rateLimit?.window.milliseconds ?? 0,
                ])
        }
    }

    /// The overrides of `queue`'s key limits, by pattern (inside a transaction).
    func keyOverrides(of queue: String) throws -> [String: KeyLimits] {
        var overrides: [String: KeyLimits] = [:]
        try connection.query(
            """
            SELECT pattern, concurrency_limit, throttle_interval_ms, throttle_measured_from, rate_limit_count, rate_limit_window_ms
            FROM key_limits WHERE queue = ?
            """, [queue]
        ) { row in
            overrides[row.string(0)] = KeyLimits(
                stored: Int(row.int64(1)), throttleInterval: row.int64(2), measuredFrom: row.string(3),
                rateCount: Int(row.int64(4)), rateWindow: row.int64(5))
        }
        return overrides
    }

    /// Gives the waiting jobs of `queue` the throttle's new interval, as its mutability says.
    private func applyChangedInterval(_ throttle: Throttle, queue: String) throws {
        let applies: String
        switch throttle.mutability {
        case .all: applies = ""
        case .defaultOnly: applies = "AND throttle_interval_source = 'queue'"
        case .none: return
        }
        try connection.execute(
            """
            UPDATE jobs SET throttle_interval_ms = ?2, throttle_interval_source = 'queue'
            WHERE queue = ?1 AND state IN ('scheduled', 'pending', 'blocked') \(applies)
            """, [queue, throttle.interval.milliseconds])
    }

    /// Suspends (`true`) or resumes a queue: running jobs finish, nothing new starts while suspended.
    ///
    /// - Throws: `invalidArgument` when no such queue exists.
    package func setSuspended(_ suspended: Bool, queue: String, now: Int64) throws {
        try write("\(suspended ? "suspend" : "resume") queue '\(queue)'", now: now) { now in
            queueSettingsChanged()
            try connection.execute(
                "UPDATE queues SET suspended = ?, updated_at = ? WHERE name = ?", [suspended, now, queue])
            guard try connection.changes == 1 else {
                throw DurableQueueError(.invalidArgument, "no queue is named '\(queue)'", queue: queue)
            }
        }
    }

    /// The settings of queue `name`, or nil if it has none.
    package func queue(named name: String) throws -> QueueConfiguration? {
        try read("read queue '\(name)'") {
            try queues(where: "WHERE name = ?", [name]).first
        }
    }

    /// Every queue's name, sorted.
    package func queueNames() throws -> [String] {
        try read("list the queues' names") { try queueNamesWithinTransaction() }
    }

    /// Every queue's settings, by name.
    package func queues() throws -> [QueueConfiguration] {
        try read("list queues") { try queues(where: "", []) }
    }

    private func queues(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [QueueConfiguration] {
        var result: [QueueConfiguration] = []
        try connection.query(
            """
            SELECT name, mode, concurrency_limit, suspended, throttle_interval_ms, throttle_measured_from,
                   throttle_mutability, rate_limit_count, rate_limit_window_ms, aging_interval_ms, aging_limit, partition_limit,
                   fairness, key_throttle_interval_ms, key_throttle_measured_from, key_rate_limit_count, key_rate_limit_window_ms
            FROM queues \(clause) ORDER BY name
            """, arguments
        ) { row in
            let throttle = Throttle(
                .milliseconds(row.int64(4)), measuredFrom: Throttle.Measurement(rawValue: row.string(5)) ?? .start,
                mutability: Throttle.Mutability(rawValue: row.string(6)) ?? .all)
            let rateCount = Int(row.int64(7))
            let keyLimits = KeyLimits(
                stored: 0, throttleInterval: row.int64(13), measuredFrom: row.string(14), rateCount: Int(row.int64(15)),
                rateWindow: row.int64(16))
            result.append(
                QueueConfiguration(
                    row.string(0), mode: try QueueMode(validating: row.string(1)),
                    concurrencyLimit: Int(row.int64(2)), isPaused: row.int64(3) != 0,
                    throttle: throttle == Throttle(.zero) ? nil : throttle,
                    rateLimit: rateCount > 0 ? RateLimit(rateCount, per: .milliseconds(row.int64(8))) : nil,
                    aging: row.int64(9) > 0 ? Aging(every: .milliseconds(row.int64(9)), upTo: Priority(rawValue: Int(row.int64(10)))) : nil,
                    partitionLimit: Int(row.int64(11)), fairness: Fairness(rawValue: row.string(12)) ?? .none,
                    keyThrottle: keyLimits.throttle, keyRateLimit: keyLimits.rateLimit))
        }
        for index in result.indices { result[index].keyOverrides = try keyOverrides(of: result[index].name) }
        return result
    }
}
