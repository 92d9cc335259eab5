import DurableQueue

extension PostgresRows: WorkerRows {
    func deleteWorkerKinds(of workerID: String) async throws {
        try await session.execute("DELETE FROM worker_kinds WHERE worker_id = $1", [workerID])
    }

    func insertWorkerKind(_ row: WorkerKindRecord) async throws {
        try await session.execute(
            """
            INSERT INTO worker_kinds (worker_id, kind, lowest_version, highest_version, started_at, seen_at, queues, paused_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """,
            [
                row.workerID, row.kind, row.versions.lowerBound, row.versions.upperBound, row.startedAt, row.seenAt, row.queuesText,
                row.pausedAt,
            ])
    }

    func deleteWorkerKinds(seenBefore: Int64) async throws {
        try await session.execute("DELETE FROM worker_kinds WHERE seen_at < $1", [seenBefore])
    }

    func markWorkerKindsPaused(of workerID: String, at pausedAt: Int64) async throws {
        try await session.execute("UPDATE worker_kinds SET paused_at = $2 WHERE worker_id = $1", [workerID, pausedAt])
    }
}
