import DurableQueueCore

extension SQLiteJobStore {
    /// The job types running workers wrote that they run, stale ones included.
    package func workerKinds() throws -> [WorkerKindRecord] {
        try read("read the job types workers run") {
            var rows: [WorkerKindRecord] = []
            try connection.query(
                "SELECT worker_id, kind, lowest_version, highest_version, started_at, seen_at, queues, paused_at FROM worker_kinds "
                    + "ORDER BY worker_id, kind"
            ) { row in
                let lowest = Int(row.int64(2))
                rows.append(
                    WorkerKindRecord(
                        workerID: row.string(0), kind: row.string(1), versions: lowest...max(lowest, Int(row.int64(3))),
                        startedAt: row.int64(4), seenAt: row.int64(5), queues: WorkerKindRecord.queues(fromText: row.optionalString(6)),
                        pausedAt: row.optionalInt64(7)))
            }
            return rows
        }
    }
}
