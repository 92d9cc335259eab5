import DurableQueueCore

extension SQLiteRows: WorkerRows {
    func deleteWorkerKinds(of workerID: String) async throws {
        try onStore { try $0.connection.execute("DELETE FROM worker_kinds WHERE worker_id = ?", [workerID]) }
    }

    func insertWorkerKind(_ row: WorkerKindRecord) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                INSERT INTO worker_kinds (worker_id, kind, lowest_version, highest_version, started_at, seen_at, queues, paused_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    row.workerID, row.kind, row.versions.lowerBound, row.versions.upperBound, row.startedAt, row.seenAt, row.queuesText,
                    row.pausedAt,
                ])
        }
    }

    func deleteWorkerKinds(seenBefore: Int64) async throws {
        try onStore { try $0.connection.execute("DELETE FROM worker_kinds WHERE seen_at < ?", [seenBefore]) }
    }

    func markWorkerKindsPaused(of workerID: String, at pausedAt: Int64) async throws {
        try onStore { try $0.connection.execute("UPDATE worker_kinds SET paused_at = ? WHERE worker_id = ?", [pausedAt, workerID]) }
    }
}
