import DurableQueue

extension PostgresJobStore {
    /// Raises the priority of pending jobs that waited their queue's aging interval (see
    /// ``JobStore/ageWaitingJobs(now:)``); nil, after a read and
    /// no write, when no queue ages.
    package func ageWaitingJobs(now: Int64) async throws -> Int? {
        let aging = try await read("read the queues' aging") { session in
            try await session.rows("SELECT name, aging_interval_ms, aging_limit FROM queues WHERE aging_interval_ms > 0").map { row in
                (queue: try row.string(0), interval: try row.int64(1), limit: try row.int(2))
            }
        }
        guard !aging.isEmpty else { return nil }
        return try await write("age waiting jobs") { session in
            var risen = 0
            for queue in aging {
                // One statement per queue: the rise and its history rows.
                let rows = try await session.rows(
                    """
                    WITH risen AS (
                        UPDATE jobs SET priority = priority + 1, updated_at = $4
                        WHERE state = 'pending' AND queue = $1 AND priority < $2 AND updated_at <= $4 - $3
                        RETURNING id, priority, attempts
                    )
                    INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
                    SELECT id, $4, 'pending', 'pending', attempts,
                           'aged: priority ' || (priority - 1) || ' → ' || priority || ' after waiting ' || $5::text
                    FROM risen ORDER BY id
                    RETURNING job_id
                    """, [queue.queue, queue.limit, queue.interval, now, HistoryNote.delay(milliseconds: queue.interval)])
                risen += rows.count
            }
            return risen
        }
    }
}
