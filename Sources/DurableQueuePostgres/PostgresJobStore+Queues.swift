import DurableQueue
import Synchronization

extension PostgresJobStore {
    /// Replaces a queue's settings, all but an existing queue's suspension.
    package func configure(_ queue: QueueConfiguration, now: Int64) async throws {
        try queue.validate()
        try await write("configure queue '\(queue.name)'", now: now) { [self] session, now in
            let previous = try await queues(session, named: queue.name, lock: true).first
            var settings = queue
            settings.isPaused = previous?.isPaused ?? queue.isPaused
            try await store(session, settings, replacing: previous, now: now)
        }
    }

    /// Applies `change` to a queue's settings (the defaults for a new queue) in one transaction.
    package func updateQueue(named name: String, now: Int64, _ change: @escaping @Sendable (inout QueueConfiguration) -> Void)
        async throws -> QueueConfiguration
    {
        try await write("update queue '\(name)'", now: now) { [self] session, now in
            let previous = try await queues(session, named: name, lock: true).first
            var settings = previous ?? QueueConfiguration(name)
            change(&settings)
            guard settings.name == name else {
                throw DurableQueueError.invalidArgument("queue name", "an update cannot rename queue '\(name)'")
            }
            try settings.validate()
            try await store(session, settings, replacing: previous, now: now)
            return settings
        }
    }

    /// Writes `queue`'s settings over `previous` (nil: a new queue) and applies what the change
    /// implies to its jobs and starts.
    private func store(_ session: PostgresSession, _ queue: QueueConfiguration, replacing previous: QueueConfiguration?, now: Int64)
        async throws
    {
        let throttle = queue.throttle ?? Throttle(.zero)
        let rate = queue.rateLimit
        try await session.execute(
            """
            INSERT INTO queues (name, mode, concurrency_limit, suspended, throttle_interval_ms, throttle_measured_from,
                                throttle_mutability, rate_limit_count, rate_limit_window_ms, aging_interval_ms, aging_limit,
                                partition_limit, fairness, key_throttle_interval_ms, key_throttle_measured_from,
                                key_rate_limit_count, key_rate_limit_window_ms, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $12, $13, $14, $15, $16, $17, $18, $10, $10)
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
                queue.name, queue.mode.rawValue, queue.concurrencyLimit, queue.isPaused, throttle.interval.milliseconds,
                throttle.measuredFrom.rawValue, throttle.mutability.rawValue, rate?.count ?? 0, rate?.window.milliseconds ?? 0, now,
                queue.aging?.every.milliseconds ?? 0, queue.aging?.upTo.rawValue ?? 0, queue.partitionLimit, queue.fairness.rawValue,
                queue.keyThrottle?.interval.milliseconds ?? 0, queue.keyThrottle?.measuredFrom.rawValue ?? "start",
                queue.keyRateLimit?.count ?? 0, queue.keyRateLimit?.window.milliseconds ?? 0,
            ])
        if previous?.keyOverrides != queue.keyOverrides {
            let patterns = queue.keyOverrides.keys.sorted()
            let limits = patterns.map { queue.keyOverrides[$0]! }
            try await session.execute("DELETE FROM key_limits WHERE queue = $1", [queue.name])
            try await session.execute(
                """
                INSERT INTO key_limits (queue, pattern, concurrency_limit, throttle_interval_ms, throttle_measured_from,
                                        rate_limit_count, rate_limit_window_ms)
                SELECT $1, unnest($2::text[]), unnest($3::int[]), unnest($4::bigint[]), unnest($5::text[]), unnest($6::int[]),
                       unnest($7::bigint[])
                """,
                [
                    queue.name, patterns, limits.map(\.concurrencyLimit), limits.map { $0.throttle?.interval.milliseconds ?? 0 },
                    limits.map { $0.throttle?.measuredFrom.rawValue ?? "start" }, limits.map { $0.rateLimit?.count ?? 0 },
                    limits.map { $0.rateLimit?.window.milliseconds ?? 0 },
                ])
        }
        if queue.endsKeyStartLimits(after: previous) {
            try await session.execute(
                """
                UPDATE partition_keys SET next_start_at = 0, end_gap_ms = 0, recent_starts = '{}'
                WHERE queue = $1 AND (next_start_at > 0 OR end_gap_ms > 0)
                """, [queue.name])
        }
        knownQueues.withLock { _ = $0.insert(queue.name) }
        if let previous, previous.mode != queue.mode {
            // order_key is +id on FIFO queues and -id on LIFO queues: flip it for unfinished jobs,
            // their rows locked in id order as every statement locking several jobs does.
            try await session.execute(
                """
                UPDATE jobs SET order_key = -order_key
                WHERE id IN (SELECT id FROM jobs WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                             ORDER BY id FOR UPDATE)
                """, [queue.name])
        }
        if queue.fairness == .byKey && previous?.fairness != .byKey {
            // The first tags follow every job already there.
            let row = try await session.rows(
                """
                SELECT (SELECT max(order_key) FROM jobs
                        WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')),
                       fair_time
                FROM queues WHERE name = $1
                """, [queue.name]
            ).first
            let moved = FairOrder.virtualTime(try row?.optionalInt64(1) ?? 0, becomingFairAfter: try row?.optionalInt64(0))
            try await session.execute("UPDATE queues SET fair_time = $2 WHERE name = $1", [queue.name, moved])
        }
        let previousInterval = previous?.throttle?.interval ?? .zero
        if previous != nil, previousInterval != throttle.interval, throttle.mutability != .none {
            try await session.execute(
                """
                UPDATE jobs SET throttle_interval_ms = $2, throttle_interval_source = 'queue'
                WHERE id IN (SELECT id FROM jobs
                             WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked')
                               AND ($3 = 'all' OR throttle_interval_source = 'queue')
                             ORDER BY id FOR UPDATE)
                """, [queue.name, throttle.interval.milliseconds, throttle.mutability.rawValue])
        }
        if queue.throttle == nil && queue.rateLimit == nil {
            try await session.execute("UPDATE queues SET next_start_at = 0 WHERE name = $1", [queue.name])
        }
        if queue.rateLimit == nil {
            try await session.execute("DELETE FROM queue_starts WHERE queue = $1", [queue.name])
        }
    }

    /// Suspends or resumes a queue.
    package func setSuspended(_ suspended: Bool, queue: String, now: Int64) async throws {
        try await write("\(suspended ? "suspend" : "resume") queue '\(queue)'", now: now) { session, now in
            let changed = try await session.execute(
                "UPDATE queues SET suspended = $1, updated_at = $2 WHERE name = $3", [suspended, now, queue])
            guard changed == 1 else {
                throw DurableQueueError(.invalidArgument, "no queue is named '\(queue)'", queue: queue)
            }
        }
    }

    /// A queue's stored settings; nil for a queue the store does not have.
    package func queue(named name: String) async throws -> QueueConfiguration? {
        try await read("read queue '\(name)'") { [self] session in try await queues(session, named: name, lock: false).first }
    }

    /// Every queue's name, sorted.
    package func queueNames() async throws -> [String] {
        try await read("list the queues' names") { session in
            try await session.rows("SELECT name FROM queues ORDER BY name").map { try $0.string(0) }
        }
    }

    /// The settings of queue `name` (of every queue, by name, for nil); `lock` holds the row.
    func queues(_ session: PostgresSession, named name: String?, lock: Bool) async throws -> [QueueConfiguration] {
        try await session.rows(
            """
            SELECT name, mode, concurrency_limit, suspended, throttle_interval_ms, throttle_measured_from,
                   throttle_mutability, rate_limit_count, rate_limit_window_ms, aging_interval_ms, aging_limit, partition_limit,
                   fairness, key_throttle_interval_ms, key_throttle_measured_from, key_rate_limit_count, key_rate_limit_window_ms,
                   \(Self.keyOverrideColumns(queue: "queues.name"))
            FROM queues WHERE $1::text IS NULL OR name = $1 ORDER BY name
            """ + (lock ? " FOR UPDATE" : ""), [name]
        ).map { row in
            let keyLimits = KeyLimits(
                stored: 0, throttleInterval: try row.int64(13), measuredFrom: try row.string(14), rateCount: try row.int(15),
                rateWindow: try row.int64(16))
            let throttle = Throttle(
                .milliseconds(try row.int64(4)), measuredFrom: Throttle.Measurement(rawValue: try row.string(5)) ?? .start,
                mutability: Throttle.Mutability(rawValue: try row.string(6)) ?? .all)
            let rateCount = try row.int(7)
            return QueueConfiguration(
                try row.string(0), mode: try QueueMode(validating: row.string(1)), concurrencyLimit: try row.int(2),
                isPaused: try row.bool(3), throttle: throttle == Throttle(.zero) ? nil : throttle,
                rateLimit: rateCount > 0 ? RateLimit(rateCount, per: .milliseconds(try row.int64(8))) : nil,
                aging: try row.int64(9) > 0 ? Aging(every: .milliseconds(try row.int64(9)), upTo: Priority(rawValue: try row.int(10))) : nil,
                partitionLimit: try row.int(11), fairness: Fairness(rawValue: try row.string(12)) ?? .none,
                keyThrottle: keyLimits.throttle, keyRateLimit: keyLimits.rateLimit, keyOverrides: try Self.keyOverrides(row, from: 17))
        }
    }

    /// The six columns of arrays ``keyOverrides(_:from:)`` reads, of the queue named by the SQL
    /// expression `queue` (a column of the statement, never input).
    static func keyOverrideColumns(queue: String) -> String {
        [
            "pattern", "concurrency_limit::bigint", "throttle_interval_ms", "throttle_measured_from", "rate_limit_count::bigint",
            "rate_limit_window_ms",
        ].map { column in
            let type = column.hasPrefix("pattern") || column.hasPrefix("throttle_measured") ? "text[]" : "bigint[]"
            return "(SELECT coalesce(array_agg(\(column) ORDER BY pattern), '{}'::\(type)) FROM key_limits AS o WHERE o.queue = \(queue))"
        }.joined(separator: ", ")
    }

    /// The key overrides a row holds as six arrays from column `first` on: patterns, concurrency
    /// limits, throttle intervals, where they are measured from, rate counts and windows.
    static func keyOverrides(_ row: PostgresResultRow, from first: Int) throws -> [String: KeyLimits] {
        let patterns = try row.stringArray(first)
        let concurrency = try row.int64Array(first + 1)
        let intervals = try row.int64Array(first + 2)
        let measuredFrom = try row.stringArray(first + 3)
        let counts = try row.int64Array(first + 4)
        let windows = try row.int64Array(first + 5)
        var overrides: [String: KeyLimits] = [:]
        for index in patterns.indices {
            overrides[patterns[index]] = KeyLimits(
                stored: Int(concurrency[index]), throttleInterval: intervals[index], measuredFrom: measuredFrom[index],
                rateCount: Int(counts[index]), rateWindow: windows[index])
        }
        return overrides
    }
}
