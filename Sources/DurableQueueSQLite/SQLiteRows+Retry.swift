import DurableQueueCore

extension SQLiteRows: RetryRows {
    /// `now`: the transaction holds the file's write lock from its start.
    func timeAfterLocks(_ now: Int64) async throws -> Int64 { now }

    func retryRow(_ id: JobID) async throws -> RetryRow? {
        try onStore { store in
            var found: RetryRow?
            try store.connection.query("SELECT state, attempts, group_id, unique_key FROM jobs WHERE id = ?", [id.rawValue]) { row in
                found = RetryRow(
                    state: try JobState(stored: row.string(0)), attempts: Int(row.int64(1)), group: row.optionalInt64(2).map { GroupID($0) },
                    uniqueKey: row.optionalString(3))
            }
            return found
        }
    }

    func uniqueKeyHolder(_ key: String, otherThan id: JobID) async throws -> JobID? {
        try onStore { store in
            try store.connection.scalarInt64(
                "SELECT id FROM jobs WHERE unique_key = ? AND id != ? AND \(SQLiteJobStore.holdsUniqueKey) LIMIT 1", [key, id.rawValue]
            ).map { JobID($0) }
        }
    }

    func putBack(_ id: JobID, from: JobState, as state: JobState, now: Int64, reason: String) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE jobs SET state = ?3, attempts = 0, cancel_requested = 0, run_at = ?2, lease_owner = NULL,
                                lease_expires_at = NULL, finished_at = NULL, updated_at = ?2
                WHERE id = ?1
                """, [id.rawValue, now, state.rawValue])
            // Its attempts start again: none made progress or was lost (progress and checkpoint stay).
            try store.connection.execute(
                """
                UPDATE job_attempt_state SET progressed_attempts = 0, checkpoint_attempt = NULL, lost_in_a_row = 0,
                                             last_lost_attempt = NULL
                WHERE job_id = ?1
                """, [id.rawValue])
            try store.appendEvent(id, now: now, from: from, to: state, attempt: 0, reason: reason)
        }
    }

    func edges(touching ids: [JobID]) async throws -> [GraphRetry.Edge] {
        try onStore { store in
            var edges: [GraphRetry.Edge] = []
            try store.connection.query(
                """
                SELECT job_id, parent_id, name, on_failure FROM job_dependencies
                WHERE job_id IN (SELECT value FROM json_each(?1)) OR parent_id IN (SELECT value FROM json_each(?1))
                """, [SQLiteJobStore.idArray(ids)]
            ) { row in
                edges.append(
                    GraphRetry.Edge(
                        job: JobID(row.int64(0)), parent: JobID(row.int64(1)), name: row.string(2),
                        onFailure: Dependency.OnFailure(rawValue: row.string(3)) ?? .cancel))
            }
            return edges
        }
    }

    func states(of ids: [JobID]) async throws -> [JobID: JobState] {
        try onStore { store in
            var states: [JobID: JobState] = [:]
            try store.connection.query(
                "SELECT id, state FROM jobs WHERE id IN (SELECT value FROM json_each(?))", [SQLiteJobStore.idArray(ids)]
            ) { states[JobID($0.int64(0))] = try JobState(stored: $0.string(1)) }
            return states
        }
    }

    func waitAgain(_ id: JobID, on names: [String], now: Int64, reason: String) async throws {
        try onStore { store in
            store.endingHooksMayHaveAppeared()
            try store.connection.execute(
                """
                UPDATE job_dependencies SET outcome = NULL, output = NULL, error = NULL, resolved_at = NULL
                WHERE job_id = ?1 AND name IN (SELECT value FROM json_each(?2))
                """, [id.rawValue, SQLiteJobStore.jsonArray(names)])
            try store.connection.execute(
                "UPDATE jobs SET state = 'blocked', cancel_requested = 0, finished_at = NULL, updated_at = ?1 WHERE id = ?2",
                [now, id.rawValue])
            try store.appendEvent(id, now: now, from: .cancelled, to: .blocked, attempt: 0, reason: reason)
        }
    }

    func deletionRow(_ id: JobID) async throws -> (state: JobState, groupState: JobState?)? {
        try onStore { store in
            var found: (state: JobState, groupState: JobState?)?
            try store.connection.query(
                "SELECT j.state, g.state FROM jobs AS j LEFT JOIN groups AS g ON g.id = j.group_id WHERE j.id = ?", [id.rawValue]
            ) { row in found = (try JobState(stored: row.string(0)), try row.optionalString(1).map { try JobState(stored: $0) }) }
            return found
        }
    }

    func delete(_ id: JobID, reason: String, now: Int64) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                INSERT OR REPLACE INTO deleted_jobs (job_id, queue, kind, state, deleted_at, reason)
                SELECT id, queue, kind, state, ?2, ?3 FROM jobs WHERE id = ?1
                """, [id.rawValue, now, reason])
            try store.connection.execute("DELETE FROM jobs WHERE id = ?", [id.rawValue])
        }
    }
}
