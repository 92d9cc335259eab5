import DurableQueueCore

extension SQLiteJobStore {
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

    /// The settings of the queues `clause` (a `WHERE` clause of bound `arguments`, or empty)
    /// selects, by name, inside the transaction under way.
    func queues(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [QueueConfiguration] {
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
