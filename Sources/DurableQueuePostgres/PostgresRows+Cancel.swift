import DurableQueue

extension PostgresRows: CancelRows {
    func cancelRow(_ id: JobID) async throws -> CancelRow? {
        guard
            let row = try await session.rows(
                "SELECT state, attempts, cancel_requested, group_id FROM jobs WHERE id = $1 FOR NO KEY UPDATE", [id.rawValue]
            ).first
        else { return nil }
        return CancelRow(
            id: id, state: try JobState(stored: row.string(0)), attempts: try row.int(1), cancelRequested: try row.bool(2),
            group: try row.optionalInt64(3).map { GroupID($0) })
    }

    func flagCancelRequested(_ row: CancelRow, now: Int64, reason: String) async throws {
        try await session.execute("UPDATE jobs SET cancel_requested = 1, updated_at = $1 WHERE id = $2", [now, row.id.rawValue])
        try await store.appendEvent(session, row.id, now: now, from: .running, to: .running, attempt: row.attempts, reason: reason)
    }

    func cancelWaitingJob(_ row: CancelRow, now: Int64, reason: String) async throws {
        try await session.execute(
            "UPDATE jobs SET state = 'cancelled', cancel_requested = 1, finished_at = $1, updated_at = $1 WHERE id = $2", [now, row.id.rawValue])
        if row.state == .waiting || row.state == .handedOff { try await store.endWaitTarget(session, of: row.id.rawValue) }
        try await store.appendEvent(session, row.id, now: now, from: row.state, to: .cancelled, attempt: row.attempts, reason: reason)
    }
}
