import DurableQueue

extension PostgresJobStore {
    /// The history rows since `since` of the `jobLimit` jobs that finished last since then and of at
    /// most `jobLimit` unfinished jobs, with their jobs' queues and creations.
    package func recentEvents(since: Int64, jobLimit: Int) async throws -> [ActivityEvent] {
        try await read("read the recent history") { session in
            try await session.rows(
                """
                WITH candidates AS (
                    SELECT id FROM (SELECT id FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled') AND finished_at >= $1
                                    ORDER BY finished_at DESC LIMIT $2) AS finished
                    UNION
                    SELECT id FROM (SELECT id FROM jobs WHERE state IN ('scheduled', 'pending', 'running') LIMIT $2) AS unfinished
                )
                SELECT j.queue, e.job_id, e.attempt, e.at, e.from_state, e.to_state, j.created_at, j.created_state
                FROM candidates AS c JOIN jobs AS j ON j.id = c.id JOIN job_events AS e ON e.job_id = c.id
                WHERE e.at >= $1
                """, [since, jobLimit]
            ).map { row in
                ActivityEvent(
                    queue: try row.string(0), job: JobID(try row.int64(1)), attempt: try row.int(2), at: try row.int64(3),
                    from: try row.optionalString(4).map { try JobState(stored: $0) }, to: try JobState(stored: row.string(5)),
                    createdAt: try row.int64(6), createdState: try row.optionalString(7).map { try JobState(stored: $0) })
            }
        }
    }

    /// Each queue's earliest due time of a pending job.
    package func oldestDue() async throws -> [String: Int64] {
        try await read("read the oldest due jobs") { session in
            var due: [String: Int64] = [:]
            for row in try await session.rows("SELECT queue, min(run_at) FROM jobs WHERE state = 'pending' GROUP BY queue", []) {
                due[try row.string(0)] = try row.int64(1)
            }
            return due
        }
    }
}
