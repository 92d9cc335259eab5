import DurableQueueCore

/// ``GroupRows`` in SQLite's dialect, for a group sequence that ``runWithoutSuspending(_:)`` runs
/// inside the store's write transaction: each operation runs at once on the thread that holds
/// the store (the file's write lock is the transaction's, so `locking` needs nothing more).
struct SQLiteRows: GroupRows {
    let store: SQLiteJobStore

    /// `body` run on the store, isolated to it: the thread running the sequence holds it.
    func onStore<T: Sendable>(_ body: (isolated SQLiteJobStore) throws -> T) throws -> T {
        try store.assumeIsolated(body)
    }

    func group(_ id: GroupID, locking: Bool) async throws -> GroupRow? {
        try onStore { try $0.groupRow(id) }
    }

    func children(of id: GroupID) async throws -> [GroupChild] {
        try onStore { try $0.children(of: id) }
    }

    func children(of id: GroupID, in states: [JobState], limit: Int?) async throws -> [GroupChild] {
        try onStore { try $0.children(of: id, in: states, limit: limit) }
    }

    func activeChildCount(of id: GroupID) async throws -> Int {
        try onStore { try $0.activeChildCount(of: id) }
    }

    func output(of id: GroupID, childAt position: Int) async throws -> String? {
        try onStore { try $0.output(of: id, at: position) }
    }

    func insertGroup(
        _ kind: GroupKind, parent: GroupID?, position: Int, name: String?, maxConcurrent: Int, now: Int64
    ) async throws -> GroupID {
        try onStore { store in
            var inserted: Int64?
            try store.connection.query(
                """
                INSERT INTO groups (kind, state, parent_id, position, name, max_concurrent, created_at, updated_at)
                VALUES (?, 'blocked', ?, ?, ?, ?, ?, ?) RETURNING id
                """, [kind.rawValue, parent?.rawValue, position, name, maxConcurrent, now, now]
            ) { row in inserted = row.int64(0) }
            guard let inserted else { throw DurableQueueError(.storage, "the group row was not inserted") }
            let id = GroupID(inserted)
            try store.appendGroupEvent(id, now: now, from: nil, to: .blocked, reason: "enqueued")
            return id
        }
    }

    func insertJob(_ job: NewJob, placement: GroupPlacement, now: Int64) async throws {
        try onStore { _ = try $0.insert(job, now: now, placement: placement) }
    }

    func startGroupRow(_ id: GroupID, now: Int64, reason: String) async throws -> Bool {
        try onStore { store in
            try store.connection.execute(
                "UPDATE groups SET state = 'running', updated_at = ? WHERE id = ? AND state = 'blocked'", [now, id.rawValue])
            guard try store.connection.changes == 1 else { return false }
            try store.appendGroupEvent(id, now: now, from: .blocked, to: .running, reason: reason)
            return true
        }
    }

    /// The job's row is read first and then updated by id, as promotions do: one `UPDATE … RETURNING`
    /// (SQLite gathers the returned row in a temporary table) and a second one to number the
    /// history row cost more.
    func startBlockedJob(_ id: JobID, previousOutput: String?, now: Int64, reason: String) async throws {
        try onStore { store in
            var blocked: (runAt: Int64, attempts: Int, eventCount: Int64)?
            try store.connection.query(
                "SELECT run_at, attempts, event_count FROM jobs WHERE id = ? AND state = 'blocked'", [id.rawValue]
            ) { row in blocked = (row.int64(0), Int(row.int64(1)), row.int64(2)) }
            guard let blocked else { return }  // started or ended already
            let state: JobState = blocked.runAt > now ? .scheduled : .pending
            try store.connection.execute(
                """
                UPDATE jobs SET state = ?2, input = CASE takes_previous_output WHEN 1 THEN coalesce(?3, 'null') ELSE input END,
                                updated_at = ?4, event_count = event_count + 1
                WHERE id = ?1
                """, [id.rawValue, state.rawValue, previousOutput, now])
            try store.appendEvents([
                SQLiteJobStore.EventRow(
                    job: id, at: now, from: .blocked, to: state, attempt: blocked.attempts, reason: reason, worker: nil,
                    seq: blocked.eventCount + 1)
            ])
        }
    }

    func endGroupRow(
        _ id: GroupID, from: JobState, as state: JobState, output: String?, error: String?, now: Int64, reason: String
    ) async throws {
        try onStore { store in
            try store.connection.execute(
                "UPDATE groups SET state = ?2, output = ?3, error = ?4, finished_at = ?5, updated_at = ?5 WHERE id = ?1",
                [id.rawValue, state.rawValue, output, error, now])
            try store.appendGroupEvent(id, now: now, from: from, to: state, reason: reason)
        }
    }

    func reopenGroupRow(_ id: GroupID, from: JobState, now: Int64, reason: String) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE groups SET state = 'running', cancel_requested = 0, output = NULL, error = NULL, finished_at = NULL, updated_at = ?2
                WHERE id = ?1
                """, [id.rawValue, now])
            try store.appendGroupEvent(id, now: now, from: from, to: .running, reason: reason)
        }
    }

    func flagGroupCancelRequested(_ id: GroupID, now: Int64) async throws {
        try onStore { store in
            try store.connection.execute("UPDATE groups SET cancel_requested = 1, updated_at = ? WHERE id = ?", [now, id.rawValue])
        }
    }
}
