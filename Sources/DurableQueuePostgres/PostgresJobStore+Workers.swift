import DurableQueue

extension PostgresJobStore {
    /// The job types running workers wrote that they run, stale ones included.
    package func workerKinds() async throws -> [WorkerKindRecord] {
        try await read("read the job types workers run") { session in
            try await session.rows(
                "SELECT worker_id, kind, lowest_version, highest_version, started_at, seen_at, queues, paused_at FROM worker_kinds "
                    + "ORDER BY worker_id, kind", []
            ).map { row in
                let lowest = try row.int(2)
                return WorkerKindRecord(
                    workerID: try row.string(0), kind: try row.string(1), versions: lowest...max(lowest, try row.int(3)),
                    startedAt: try row.int64(4), seenAt: try row.int64(5), queues: WorkerKindRecord.queues(fromText: try row.optionalString(6)),
                    pausedAt: try row.optionalInt64(7))
            }
        }
    }
}
