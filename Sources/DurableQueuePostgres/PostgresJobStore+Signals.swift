import DurableQueue

extension PostgresJobStore {
    /// The earliest deadline of a wait or hand-off under way: the first entries of
    /// idx_job_wait_targets_active whose job is still in that state.
    package func nextDeadline() async throws -> Int64? {
        try await read("find the next deadline of a wait or a hand-off") { session in
            try await session.int64(
                """
                SELECT least((SELECT min(w.due_at) FROM job_wait_targets AS w
                              WHERE w.active = 'waiting' AND w.due_at IS NOT NULL
                                AND EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = w.job_id AND j.state = 'waiting')),
                             (SELECT min(w.due_at) FROM job_wait_targets AS w
                              WHERE w.active = 'handed_off' AND w.due_at IS NOT NULL
                                AND EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = w.job_id AND j.state = 'handed_off')))
                """)
        }
    }
}
