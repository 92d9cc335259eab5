import DurableQueue

extension PostgresJobStore {
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
            """ + (lock ? " FOR NO KEY UPDATE" : ""), [name]
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
