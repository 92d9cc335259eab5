import DurableQueue

extension PostgresJobStore {
    /// The jobs handed off to `carrier` now, through the index of hand-offs and waits under way.
    package func handOffs(carrier: String) async throws -> [HandedOffJob] {
        try await read("list the jobs handed off to '\(carrier)'") { session in
            try await session.rows(
                """
                SELECT j.id, j.attempts, w.handoff_reference FROM job_wait_targets AS w JOIN jobs AS j ON j.id = w.job_id
                WHERE w.active = 'handed_off' AND j.state = 'handed_off' AND w.handed_off_to = $1
                ORDER BY j.id
                """, [carrier]
            ).map { row in
                HandedOffJob(attempt: AttemptID(job: JobID(try row.int64(0)), number: try row.int(1)), reference: try row.string(2))
            }
        }
    }

    /// Job `id`'s row as an ending reads it, locked for the rest of the transaction; nil if there is none.
    func lockedEndingRow(_ session: PostgresSession, _ id: JobID) async throws -> EndingRow? {
        try await session.rows(
            """
            SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue, \(Self.throttleInterval(of: "jobs")),
                   group_id, \(Self.progressedAttempts(of: "jobs")), 0, partition_key
            FROM jobs WHERE id = $1 FOR NO KEY UPDATE
            """, [id.rawValue]
        ).first.map(EndingRow.init)
    }
}
