extension SQLiteJobStore {
    /// Raises the priority of pending jobs that waited their queue's aging interval (see
    /// ``JobStore/ageWaitingJobs(now:)``); nil, after a read and
    /// no write, when no queue ages.
    package func ageWaitingJobs(now: Int64) throws -> Int? {
        var aging: [(queue: String, interval: Int64, limit: Int)] = []
        try read("read the queues' aging") {
            try connection.query("SELECT name, aging_interval_ms, aging_limit FROM queues WHERE aging_interval_ms > 0") { row in
                aging.append((row.string(0), row.int64(1), Int(row.int64(2))))
            }
        }
        guard !aging.isEmpty else { return nil }
        return try write("age waiting jobs") {
            var risen = 0
            for queue in aging {
                var rows: [(id: JobID, priority: Int, attempts: Int)] = []
                try connection.query(
                    """
                    UPDATE jobs SET priority = priority + 1, updated_at = ?4
                    WHERE state = 'pending' AND queue = ?1 AND priority < ?2 AND updated_at <= ?4 - ?3
                    RETURNING id, priority, attempts
                    """, [queue.queue, queue.limit, queue.interval, now]
                ) { row in rows.append((JobID(row.int64(0)), Int(row.int64(1)), Int(row.int64(2)))) }
                for row in rows {
                    try appendEvent(
                        row.id, now: now, from: .pending, to: .pending, attempt: row.attempts,
                        reason: HistoryNote.aged(to: row.priority, after: queue.interval))
                }
                risen += rows.count
            }
            return risen
        }
    }
}
