import DurableQueue

extension PostgresJobStore {
    /// The aging rule of every queue with ``Aging``: a read, so that an aging pass on a database
    /// whose queues do not age writes nothing and wakes no listener.
    package func agingRules() async throws -> [AgingRule] {
        try await read("read the queues' aging") { session in
            try await session.rows("SELECT name, aging_interval_ms, aging_limit FROM queues WHERE aging_interval_ms > 0").map { row in
                AgingRule(queue: try row.string(0), interval: try row.int64(1), limit: try row.int(2))
            }
        }
    }
}

extension PostgresRows: AgingRows {
    func raisePriorities(ofQueue queue: String, below limit: Int, changedBy: Int64, now: Int64) async throws -> [RisenJob] {
        try await session.rows(
            """
            UPDATE jobs SET priority = priority + 1, updated_at = $4
            WHERE state = 'pending' AND queue = $1 AND priority < $2 AND updated_at <= $3
            RETURNING id, priority, attempts
            """, [queue, limit, changedBy, now]
        ).map { RisenJob(id: JobID(try $0.int64(0)), priority: try $0.int(1), attempts: try $0.int(2), historyNumber: 0) }
    }

    func noteRisen(_ jobs: [RisenJob], reasons: [String], now: Int64) async throws {
        try await session.execute(
            """
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
            SELECT id, $4, 'pending', 'pending', attempt, reason
            FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(id, attempt, reason, position) ORDER BY position
            """, [jobs.map(\.id.rawValue), jobs.map { Int64($0.attempts) }, reasons, now])
    }
}
