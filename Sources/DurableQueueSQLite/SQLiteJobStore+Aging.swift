import DurableQueueCore

extension SQLiteJobStore {
    /// The aging rule of every queue with ``Aging``: a read, so that a file whose queues do not age
    /// is never locked for writing by the engine's aging pass.
    package func agingRules() throws -> [AgingRule] {
        var aging: [AgingRule] = []
        try read("read the queues' aging") {
            try connection.query("SELECT name, aging_interval_ms, aging_limit FROM queues WHERE aging_interval_ms > 0") { row in
                aging.append(AgingRule(queue: row.string(0), interval: row.int64(1), limit: Int(row.int64(2))))
            }
        }
        return aging
    }
}

extension SQLiteRows: AgingRows {
    /// The job's `event_count` rises with its priority: the note's number comes back with it.
    func raisePriorities(ofQueue queue: String, below limit: Int, changedBy: Int64, now: Int64) async throws -> [RisenJob] {
        try onStore { store in
            var risen: [RisenJob] = []
            try store.connection.query(
                """
                UPDATE jobs SET priority = priority + 1, updated_at = ?4, event_count = event_count + 1
                WHERE state = 'pending' AND queue = ?1 AND priority < ?2 AND updated_at <= ?3
                RETURNING id, priority, attempts, event_count
                """, [queue, limit, changedBy, now]
            ) { row in
                risen.append(RisenJob(id: JobID(row.int64(0)), priority: Int(row.int64(1)), attempts: Int(row.int64(2)), historyNumber: row.int64(3)))
            }
            return risen
        }
    }

    func noteRisen(_ jobs: [RisenJob], reasons: [String], now: Int64) async throws {
        try onStore { store in
            try store.appendEvents(
                zip(jobs, reasons).map { job, reason in
                    SQLiteJobStore.EventRow(
                        job: job.id, at: now, from: .pending, to: .pending, attempt: job.attempts, reason: reason, worker: nil,
                        seq: job.historyNumber)
                })
        }
    }
}
