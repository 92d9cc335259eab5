import DurableQueue
import Synchronization

extension PostgresRows: QueueRows {
    /// The queue's row is locked (`FOR UPDATE`): two changes of one queue take turns.
    func lockedQueue(named name: String) async throws -> QueueConfiguration? {
        try await store.queues(session, named: name, lock: true).first
    }

    func saveQueueRow(_ queue: QueueConfiguration, now: Int64) async throws {
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
        store.knownQueues.withLock { _ = $0.insert(queue.name) }
    }

    func replaceKeyOverrides(of queue: QueueConfiguration) async throws {
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

    func resetKeyStarts(ofQueue queue: String) async throws {
        try await session.execute(
            """
            UPDATE partition_keys SET next_start_at = 0, end_gap_ms = 0, recent_starts = '{}'
            WHERE queue = $1 AND (next_start_at > 0 OR end_gap_ms > 0)
            """, [queue])
    }

    /// The jobs' rows are locked in id order, as every statement locking several jobs does.
    func flipOrderKeys(ofQueue queue: String) async throws {
        try await session.execute(
            """
            UPDATE jobs SET order_key = -order_key
            WHERE id IN (SELECT id FROM jobs WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                         ORDER BY id FOR NO KEY UPDATE)
            """, [queue])
    }

    func latestOrderKeyAndFairTime(ofQueue queue: String) async throws -> (latestOrderKey: Int64?, fairTime: Int64) {
        let row = try await session.rows(
            """
            SELECT (SELECT max(order_key) FROM jobs
                    WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')),
                   fair_time
            FROM queues WHERE name = $1
            """, [queue]
        ).first
        return (try row?.optionalInt64(0), try row?.optionalInt64(1) ?? 0)
    }

    func setFairTime(_ time: Int64, ofQueue queue: String) async throws {
        try await session.execute("UPDATE queues SET fair_time = $2 WHERE name = $1", [queue, time])
    }

    /// The jobs' rows are locked in id order, as every statement locking several jobs does; each
    /// waiting job's interval lives in its options row: written, or made, for each.
    func setWaitingJobsInterval(_ interval: Int64, onlyQueueDefaults: Bool, ofQueue queue: String) async throws {
        try await session.execute(
            """
            WITH locked AS MATERIALIZED (
                SELECT id, extras FROM jobs WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked')
                ORDER BY id FOR NO KEY UPDATE
            ),
            options AS (
                INSERT INTO job_options (job_id, throttle_interval_ms, throttle_interval_source)
                SELECT l.id, $2, 'queue' FROM locked AS l
                WHERE $3 = 0 OR l.extras & 1 = 0
                   OR (SELECT o.throttle_interval_source FROM job_options AS o WHERE o.job_id = l.id) = 'queue'
                ON CONFLICT (job_id) DO UPDATE SET throttle_interval_ms = excluded.throttle_interval_ms,
                                                   throttle_interval_source = 'queue'
            )
            UPDATE jobs SET extras = extras | 1 WHERE id IN (SELECT id FROM locked WHERE extras & 1 = 0)
            """, [queue, interval, onlyQueueDefaults])
    }

    func clearNextStart(ofQueue queue: String) async throws {
        try await session.execute("UPDATE queues SET next_start_at = 0 WHERE name = $1", [queue])
    }

    func forgetStarts(ofQueue queue: String) async throws {
        try await session.execute("DELETE FROM queue_starts WHERE queue = $1", [queue])
    }

    func markSuspended(_ suspended: Bool, queue: String, now: Int64) async throws -> Bool {
        try await session.execute("UPDATE queues SET suspended = $1, updated_at = $2 WHERE name = $3", [suspended, now, queue]) == 1
    }
}
