import DurableQueueCore

extension SQLiteJobStore {
    /// The history rows since `since` of the `jobLimit` jobs that finished last since then and of at
    /// most `jobLimit` unfinished jobs (found through the indexes of their states), with their jobs'
    /// queues and creations.
    package func recentEvents(since: Int64, jobLimit: Int) throws -> [ActivityEvent] {
        try read("read the recent history") {
            var events: [ActivityEvent] = []
            try connection.query(
                """
                WITH candidates AS (
                    SELECT id FROM (SELECT id FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled') AND finished_at >= ?1
                                    ORDER BY finished_at DESC LIMIT ?2) AS finished
                    UNION
                    SELECT id FROM (SELECT id FROM jobs WHERE state IN ('scheduled', 'pending', 'running') LIMIT ?2) AS unfinished
                )
                SELECT j.queue, e.job_id, e.attempt, e.at, e.from_state, e.to_state, j.created_at, j.created_state
                FROM candidates AS c JOIN jobs AS j ON j.id = c.id JOIN job_events AS e ON e.job_id = c.id
                WHERE e.at >= ?1
                """, [since, jobLimit]
            ) { row in
                events.append(
                    ActivityEvent(
                        queue: row.string(0), job: JobID(row.int64(1)), attempt: Int(row.int64(2)), at: row.int64(3),
                        from: try row.optionalString(4).map { try JobState(stored: $0) }, to: try JobState(stored: row.string(5)),
                        createdAt: row.int64(6), createdState: try row.optionalString(7).map { try JobState(stored: $0) }))
            }
            return events
        }
    }

    /// Each queue's earliest due time of a pending job.
    package func oldestDue() throws -> [String: Int64] {
        try read("read the oldest due jobs") {
            var due: [String: Int64] = [:]
            try connection.query("SELECT queue, min(run_at) FROM jobs WHERE state = 'pending' GROUP BY queue") { due[$0.string(0)] = $0.int64(1) }
            return due
        }
    }
}
