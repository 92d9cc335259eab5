import DurableQueueCore

extension SQLiteJobStore {
    /// The earliest wait timeout or hand-off deadline (see ``JobStoreReader/nextDeadline()``), each
    /// the first entry of its partial index.
    package func nextDeadline() throws -> Int64? {
        try read("find the next deadline of a wait or a hand-off") {
            try connection.scalarInt64(
                """
                SELECT min(at) FROM (SELECT min(wait_deadline) AS at FROM jobs WHERE state = 'waiting'
                                     UNION ALL
                                     SELECT min(handoff_deadline) FROM jobs WHERE state = 'handed_off')
                """)
        }
    }

    /// The waiting jobs whose deadline is before `?1`: a walk of the waiting jobs in idx_jobs_timed.
    static let passedWaits = "SELECT id, attempts, waiting_for, wait_deadline FROM jobs WHERE state = 'waiting' AND wait_deadline < ?1"
}
