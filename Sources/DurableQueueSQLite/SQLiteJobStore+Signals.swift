import DurableQueueCore

extension SQLiteJobStore {
    /// The earliest wait timeout or hand-off deadline (see ``JobStoreReader/nextDeadline()``): the
    /// first entries of idx_job_wait_targets_active whose job is still in that state.
    package func nextDeadline() throws -> Int64? {
        try read("find the next deadline of a wait or a hand-off") { try connection.scalarInt64(Self.nextDeadlineStatement) }
    }

    /// The earliest deadline of a wait or hand-off under way.
    static let nextDeadlineStatement = """
        SELECT min(at) FROM (SELECT min(w.due_at) AS at FROM job_wait_targets AS w
                             WHERE w.active = 'waiting' AND w.due_at IS NOT NULL
                               AND EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = w.job_id AND j.state = 'waiting')
                             UNION ALL
                             SELECT min(w.due_at) FROM job_wait_targets AS w
                             WHERE w.active = 'handed_off' AND w.due_at IS NOT NULL
                               AND EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = w.job_id AND j.state = 'handed_off'))
        """

    /// The waiting jobs whose deadline is before `?1`: a walk of the waits under way in
    /// idx_job_wait_targets_active.
    static let passedWaits = """
        SELECT j.id, j.attempts, w.waiting_for, w.wait_deadline
        FROM job_wait_targets AS w JOIN jobs AS j ON j.id = w.job_id
        WHERE w.active = 'waiting' AND w.due_at < ?1 AND j.state = 'waiting'
        """
}
