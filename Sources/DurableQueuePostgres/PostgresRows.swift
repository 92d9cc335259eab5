import DurableQueue

/// ``GroupRows`` in PostgreSQL's dialect, inside the transaction of `session`: a locking read
/// holds the group's row until the transaction ends.
struct PostgresRows: GroupRows {
    let store: PostgresJobStore
    let session: PostgresSession

    func group(_ id: GroupID, locking: Bool) async throws -> GroupRow? {
        try await store.groupRow(session, id, locking: locking)
    }

    func children(of id: GroupID) async throws -> [GroupChild] {
        try await store.children(session, of: id)
    }

    func children(of id: GroupID, in states: [JobState], limit: Int?) async throws -> [GroupChild] {
        try await store.children(session, of: id, in: states, limit: limit)
    }

    func activeChildCount(of id: GroupID) async throws -> Int {
        try await store.children(session, of: id, in: GroupAdvance.activeStates).count
    }

    func output(of id: GroupID, childAt position: Int) async throws -> String? {
        try await store.output(session, of: id, at: position)
    }

    func insertGroup(
        _ kind: GroupKind, parent: GroupID?, position: Int, name: String?, maxConcurrent: Int, now: Int64
    ) async throws -> GroupID {
        guard
            let inserted = try await session.int64(
                """
                INSERT INTO groups (kind, state, parent_id, position, name, max_concurrent, created_at, updated_at)
                VALUES ($1, 'blocked', $2, $3, $4, $5, $6, $6) RETURNING id
                """, [kind.rawValue, parent?.rawValue, position, name, maxConcurrent, now])
        else { throw DurableQueueError(.storage, "the group row was not inserted") }
        let id = GroupID(inserted)
        try await store.appendGroupEvent(session, id, now: now, from: nil, to: .blocked, reason: "enqueued")
        return id
    }

    func insertJob(_ job: NewJob, placement: GroupPlacement, now: Int64) async throws {
        _ = try await store.insert(session, job, now: now, placement: placement)
    }

    func startGroupRow(_ id: GroupID, now: Int64, reason: String) async throws -> Bool {
        let changed = try await session.execute(
            "UPDATE groups SET state = 'running', updated_at = $1 WHERE id = $2 AND state = 'blocked'", [now, id.rawValue])
        guard changed == 1 else { return false }
        try await store.appendGroupEvent(session, id, now: now, from: .blocked, to: .running, reason: reason)
        return true
    }

    func startBlockedJob(_ id: JobID, previousOutput: String?, now: Int64, reason: String) async throws {
        guard
            let row = try await session.rows(
                """
                UPDATE jobs SET state = CASE WHEN run_at > $2 THEN 'scheduled' ELSE 'pending' END,
                                input = CASE takes_previous_output WHEN 1 THEN coalesce($3::jsonb, 'null'::jsonb) ELSE input END,
                                updated_at = $2
                WHERE id = $1 AND state = 'blocked'
                RETURNING state, attempts
                """, [id.rawValue, now, previousOutput]
            ).first
        else { return }  // started or ended already
        try await store.appendEvent(
            session, id, now: now, from: .blocked, to: try JobState(stored: row.string(0)), attempt: try row.int(1), reason: reason)
    }

    func endGroupRow(
        _ id: GroupID, from: JobState, as state: JobState, output: String?, error: String?, now: Int64, reason: String
    ) async throws {
        try await session.execute(
            "UPDATE groups SET state = $2, output = $3::jsonb, error = $4, finished_at = $5, updated_at = $5 WHERE id = $1",
            [id.rawValue, state.rawValue, output, error, now])
        try await store.appendGroupEvent(session, id, now: now, from: from, to: state, reason: reason)
    }

    func reopenGroupRow(_ id: GroupID, from: JobState, now: Int64, reason: String) async throws {
        try await session.execute(
            """
            UPDATE groups SET state = 'running', cancel_requested = 0, output = NULL, error = NULL, finished_at = NULL, updated_at = $2
            WHERE id = $1
            """, [id.rawValue, now])
        try await store.appendGroupEvent(session, id, now: now, from: from, to: .running, reason: reason)
    }

    func flagGroupCancelRequested(_ id: GroupID, now: Int64) async throws {
        try await session.execute("UPDATE groups SET cancel_requested = 1, updated_at = $1 WHERE id = $2", [now, id.rawValue])
    }
}
