import DurableQueueCore

extension SQLiteRows: QueueRows {
    /// A read: the transaction holds the file's write lock from its start.
    func lockedQueue(named name: String) async throws -> QueueConfiguration? {
        try onStore { try $0.queues(where: "WHERE name = ?", [name]).first }
    }

    func saveQueueRow(_ queue: QueueConfiguration, now: Int64) async throws {
        try onStore { store in
            store.queueSettingsChanged()
            let throttle = queue.throttle ?? Throttle(.zero)
            let rate = queue.rateLimit
            try store.connection.execute(
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
            store.knownQueues.insert(queue.name)
            store.knownQueueSettings.forget(queue.name)
        }
    }

    func replaceKeyOverrides(of queue: QueueConfiguration) async throws {
        try onStore { store in
            store.queueSettingsChanged()
            try store.connection.execute("DELETE FROM key_limits WHERE queue = ?", [queue.name])
            for (pattern, limits) in queue.keyOverrides {
                try store.connection.execute(
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
    }

    func resetKeyStarts(ofQueue queue: String) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE partition_keys SET next_start_at = 0, end_gap_ms = 0, recent_starts = '[]'
                WHERE queue = ? AND (next_start_at > 0 OR end_gap_ms > 0)
                """, [queue])
        }
    }

    func flipOrderKeys(ofQueue queue: String) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE jobs SET order_key = -order_key
                WHERE queue = ? AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                """, [queue])
        }
    }

    func latestOrderKeyAndFairTime(ofQueue queue: String) async throws -> (latestOrderKey: Int64?, fairTime: Int64) {
        try onStore { store in
            let latest = try store.connection.scalarInt64(
                """
                SELECT max(order_key) FROM jobs
                WHERE queue = ? AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                """, [queue])
            return (latest, try store.connection.scalarInt64("SELECT fair_time FROM queues WHERE name = ?", [queue]) ?? 0)
        }
    }

    func setFairTime(_ time: Int64, ofQueue queue: String) async throws {
        try onStore { try $0.connection.execute("UPDATE queues SET fair_time = ? WHERE name = ?", [time, queue]) }
    }

    func setWaitingJobsInterval(_ interval: Int64, onlyQueueDefaults: Bool, ofQueue queue: String) async throws {
        try onStore { store in
            // Each waiting job's interval lives in its options row: written, or made, for each.
            try store.connection.execute(
                """
                INSERT INTO job_options (job_id, throttle_interval_ms, throttle_interval_source)
                SELECT id, ?2, 'queue' FROM jobs
                WHERE queue = ?1 AND state IN ('scheduled', 'pending', 'blocked')
                  AND (?3 = 0 OR NOT extras & 1
                       OR (SELECT o.throttle_interval_source FROM job_options AS o WHERE o.job_id = jobs.id) = 'queue')
                ON CONFLICT (job_id) DO UPDATE SET throttle_interval_ms = excluded.throttle_interval_ms,
                                                   throttle_interval_source = 'queue'
                """, [queue, interval, onlyQueueDefaults])
            try store.connection.execute(
                "UPDATE jobs SET extras = extras | 1 WHERE queue = ?1 AND state IN ('scheduled', 'pending', 'blocked') AND NOT extras & 1",
                [queue])
        }
    }

    func clearNextStart(ofQueue queue: String) async throws {
        try onStore { try $0.connection.execute("UPDATE queues SET next_start_at = 0 WHERE name = ?", [queue]) }
    }

    func forgetStarts(ofQueue queue: String) async throws {
        try onStore { try $0.connection.execute("DELETE FROM queue_starts WHERE queue = ?", [queue]) }
    }

    func markSuspended(_ suspended: Bool, queue: String, now: Int64) async throws -> Bool {
        try onStore { store in
            store.queueSettingsChanged()
            try store.connection.execute("UPDATE queues SET suspended = ?, updated_at = ? WHERE name = ?", [suspended, now, queue])
            return try store.connection.changes == 1
        }
    }
}
