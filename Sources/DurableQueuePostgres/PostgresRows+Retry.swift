import DurableQueue

extension PostgresRows: RetryRows {
    /// The store's clock read again: the rows locked so far are held.
    func timeAfterLocks(_ now: Int64) async throws -> Int64 { store.stamp(now) }

    func retryRow(_ id: JobID) async throws -> RetryRow? {
        guard
            let row = try await session.rows(
                "SELECT state, attempts, group_id, unique_key FROM jobs WHERE id = $1 FOR NO KEY UPDATE", [id.rawValue]
            ).first
        else { return nil }
        return RetryRow(
            state: try JobState(stored: row.string(0)), attempts: try row.int(1), group: try row.optionalInt64(2).map { GroupID($0) },
            uniqueKey: try row.optionalString(3))
    }

    func uniqueKeyHolder(_ key: String, otherThan id: JobID) async throws -> JobID? {
        try await session.int64(
            "SELECT id FROM jobs WHERE unique_key = $1 AND id <> $2 AND \(PostgresJobStore.holdsUniqueKey) LIMIT 1", [key, id.rawValue]
        ).map { JobID($0) }
    }

    func putBack(_ id: JobID, from: JobState, as state: JobState, now: Int64, reason: String) async throws {
        try await session.execute(
            """
            UPDATE jobs SET state = $3, attempts = 0, cancel_requested = 0, run_at = $2, lease_owner = NULL, lease_expires_at = NULL,
                            finished_at = NULL, updated_at = $2
            WHERE id = $1
            """, [id.rawValue, now, state.rawValue])
        // Its attempts start again: none made progress or was lost (progress and checkpoint stay).
        try await session.execute(
            """
            UPDATE job_attempt_state SET progressed_attempts = 0, checkpoint_attempt = NULL, lost_in_a_row = 0, last_lost_attempt = NULL
            WHERE job_id = $1
            """, [id.rawValue])
        try await store.appendEvent(session, id, now: now, from: from, to: state, attempt: 0, reason: reason)
    }

    func edges(touching ids: [JobID]) async throws -> [GraphRetry.Edge] {
        try await session.rows(
            """
            SELECT job_id, parent_id, name, on_failure FROM job_dependencies
            WHERE job_id = ANY($1::bigint[]) OR parent_id = ANY($1::bigint[])
            """, [ids.map(\.rawValue)]
        ).map { row in
            GraphRetry.Edge(
                job: JobID(try row.int64(0)), parent: JobID(try row.int64(1)), name: try row.string(2),
                onFailure: Dependency.OnFailure(rawValue: try row.string(3)) ?? .cancel)
        }
    }

    func states(of ids: [JobID]) async throws -> [JobID: JobState] {
        var states: [JobID: JobState] = [:]
        for row in try await session.rows(
            "SELECT id, state FROM jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE", [ids.map(\.rawValue).sorted()])
        {
            states[JobID(try row.int64(0))] = try JobState(stored: row.string(1))
        }
        return states
    }

    func waitAgain(_ id: JobID, on names: [String], now: Int64, reason: String) async throws {
        try await session.execute(
            """
            UPDATE job_dependencies SET outcome = NULL, output = NULL, error = NULL, resolved_at = NULL
            WHERE job_id = $1 AND name = ANY($2::text[])
            """, [id.rawValue, names])
        try await session.execute(
            "UPDATE jobs SET state = 'blocked', cancel_requested = 0, finished_at = NULL, updated_at = $1 WHERE id = $2", [now, id.rawValue])
        try await store.appendEvent(session, id, now: now, from: .cancelled, to: .blocked, attempt: 0, reason: reason)
    }

    func deletionRow(_ id: JobID) async throws -> (state: JobState, groupState: JobState?)? {
        guard
            let row = try await session.rows(
                "SELECT j.state, g.state FROM jobs AS j LEFT JOIN groups AS g ON g.id = j.group_id WHERE j.id = $1 FOR UPDATE OF j",
                [id.rawValue]
            ).first
        else { return nil }
        return (try JobState(stored: row.string(0)), try row.optionalString(1).map { try JobState(stored: $0) })
    }

    func delete(_ id: JobID, reason: String, now: Int64) async throws {
        try await session.execute(
            """
            INSERT INTO deleted_jobs (job_id, queue, kind, state, deleted_at, reason)
            SELECT id, queue, kind, state, $2, $3 FROM jobs WHERE id = $1
            ON CONFLICT (job_id) DO UPDATE SET deleted_at = excluded.deleted_at, reason = excluded.reason
            """, [id.rawValue, now, reason])
        try await session.execute("DELETE FROM jobs WHERE id = $1", [id.rawValue])
    }
}
