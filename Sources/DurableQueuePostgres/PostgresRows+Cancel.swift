import DurableQueue

extension PostgresRows: CancelRows {
    func cancelRow(_ id: JobID) async throws -> CancelRow? {
        guard
            let row = try await session.rows(
                "SELECT state, attempts, cancel_requested, group_id FROM jobs WHERE id = $1 FOR UPDATE", [id.rawValue]
            ).first
        else { return nil }
        return CancelRow(
            id: id, state: try JobState(stored: row.string(0)), attempts: try row.int(1), cancelRequested: try row.bool(2),
            group: try row.optionalInt64(3).map { GroupID($0) })
    }

    func unfinishedJobs(matching selector: CancelSelector) async throws -> [JobID] {
        let (sql, values): (String, [(any PostgresValue)?]) =
            switch selector {
            case .tag(let tag):
                ("SELECT job_id FROM job_tags WHERE tag = $1 ORDER BY job_id", [tag])
            case .queue(let queue):
                ("SELECT id FROM jobs WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting') ORDER BY id", [queue])
            case .all:
                ("SELECT id FROM jobs WHERE state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting') ORDER BY id", [])
            }
        return try await session.rows(sql, values).map { JobID(try $0.int64(0)) }
    }

    func flagCancelRequested(_ row: CancelRow, now: Int64, reason: String) async throws {
        try await session.execute("UPDATE jobs SET cancel_requested = 1, updated_at = $1 WHERE id = $2", [now, row.id.rawValue])
        try await store.appendEvent(session, row.id, now: now, from: .running, to: .running, attempt: row.attempts, reason: reason)
    }

    func cancelWaitingJob(_ row: CancelRow, now: Int64, reason: String) async throws {
        try await session.execute(
            "UPDATE jobs SET state = 'cancelled', cancel_requested = 1, finished_at = $1, updated_at = $1 WHERE id = $2", [now, row.id.rawValue])
        try await store.appendEvent(session, row.id, now: now, from: row.state, to: .cancelled, attempt: row.attempts, reason: reason)
    }
}
