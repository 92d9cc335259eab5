import DurableQueue

extension PostgresJobStore {
    /// Raises the priority of pending jobs that waited their queue's aging interval (see
    /// ``JobStore/ageWaitingJobs(now:)``); nil, after a read and
    /// no write, when no queue ages.
    package func ageWaitingJobs(now: Int64) async throws -> Int? {
        let aging = try await read("read the queues' aging") { session in
            try await session.rows("SELECT name, aging_interval_ms, aging_limit FROM queues WHERE aging_interval_ms > 0").map { row in
                AgingRule(queue: try row.string(0), interval: try row.int64(1), limit: try row.int(2))
            }
        }
        guard !aging.isEmpty else { return nil }
        return try await write("age waiting jobs", now: now) { session, now in
            var risen = 0
            for queue in aging {
                let rows = try await session.rows(
                    """
                    UPDATE jobs SET priority = priority + 1, updated_at = $4
                    WHERE state = 'pending' AND queue = $1 AND priority < $2 AND updated_at <= $3
                    RETURNING id, priority, attempts
                    """, [queue.queue, queue.limit, queue.waitedSince(now: now), now])
                guard !rows.isEmpty else { continue }
                let risenRows = try rows.map { (id: try $0.int64(0), priority: try $0.int(1), attempt: try $0.int64(2)) }
                    .sorted { $0.id < $1.id }
                try await session.execute(
                    """
                    INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
                    SELECT id, $4, 'pending', 'pending', attempt, reason
                    FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS r(id, attempt, reason) ORDER BY id
                    """, [risenRows.map(\.id), risenRows.map(\.attempt), risenRows.map { queue.reason(risenTo: $0.priority) }, now])
                risen += rows.count
            }
            return risen
        }
    }
}
