extension SQLiteJobStore {
    /// Raises the priority of pending jobs that waited their queue's aging interval (see
    /// ``JobStore/ageWaitingJobs(now:)``); nil, after a read and
    /// no write, when no queue ages.
    package func ageWaitingJobs(now: Int64) throws -> Int? {
        var aging: [AgingRule] = []
        try read("read the queues' aging") {
            try connection.query("SELECT name, aging_interval_ms, aging_limit FROM queues WHERE aging_interval_ms > 0") { row in
                aging.append(AgingRule(queue: row.string(0), interval: row.int64(1), limit: Int(row.int64(2))))
            }
        }
        guard !aging.isEmpty else { return nil }
        return try write("age waiting jobs", now: now) { now in
            var risen = 0
            for queue in aging {
                var events: [EventRow] = []
                try connection.query(
                    """
                    UPDATE jobs SET priority = priority + 1, updated_at = ?4, event_count = event_count + 1
                    WHERE state = 'pending' AND queue = ?1 AND priority < ?2 AND updated_at <= ?3
                    RETURNING id, priority, attempts, event_count
                    """, [queue.queue, queue.limit, queue.waitedSince(now: now), now]
                ) { row in
                    events.append(
                        EventRow(
                            job: JobID(row.int64(0)), at: now, from: .pending, to: .pending, attempt: Int(row.int64(2)),
                            reason: queue.reason(risenTo: Int(row.int64(1))), worker: nil,
                            seq: row.int64(3)))
                }
                try appendEvents(events)
                risen += events.count
            }
            return risen
        }
    }
}
