import DurableQueueCore

extension SQLiteJobStore {
    /// The jobs handed off to `carrier` now, read through the index of handed-off jobs (a scan of
    /// the transfers in flight, never of the table).
    package func handOffs(carrier: String) throws -> [HandedOffJob] {
        try read("list the jobs handed off to '\(carrier)'") {
            var found: [HandedOffJob] = []
            try connection.query(Self.handOffsOfCarrier, [carrier]) { row in
                found.append(
                    HandedOffJob(attempt: AttemptID(job: JobID(row.int64(0)), number: Int(row.int64(1))), reference: row.string(2)))
            }
            // In id order, sorted here: ORDER BY id made SQLite walk the whole table by rowid.
            return found.sorted { $0.attempt.job < $1.attempt.job }
        }
    }

    /// The jobs handed off to carrier `?1`: their id, attempt and reference, from the hand-offs
    /// under way in idx_job_wait_targets_active.
    static let handOffsOfCarrier = """
        SELECT j.id, j.attempts, w.handoff_reference
        FROM job_wait_targets AS w JOIN jobs AS j ON j.id = w.job_id
        WHERE w.active = 'handed_off' AND w.handed_off_to = ?1 AND j.state = 'handed_off'
        """
}
