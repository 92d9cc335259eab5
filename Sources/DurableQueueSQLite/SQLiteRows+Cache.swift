import DurableQueueCore

extension SQLiteRows: CacheRows {
    /// A read: the transaction holds the file's write lock from its start.
    func lockedCacheEntry(namespace: String, key: String, kind: String, maxFailures: Int?, now: Int64) async throws
        -> CacheEntryRecord?
    {
        try onStore { try $0.entry(namespace: namespace, key: key) }
    }

    func currentState(of id: JobID) async throws -> JobState? {
        try onStore { try $0.stateRow(id)?.state }
    }

    func assignCacheEntry(namespace: String, key: String, kind: String, to id: JobID, maxFailures: Int?, now: Int64) async throws {
        try onStore { store in
            store.endingHooksMayHaveAppeared()
            try store.connection.execute(
                """
                INSERT INTO cache_entries (namespace, key, state, kind, job_id, max_failures, updated_at)
                VALUES (?1, ?2, 'inProgress', ?3, ?4, ?5, ?6)
                ON CONFLICT (namespace, key) DO UPDATE SET
                    state = 'inProgress', kind = excluded.kind, job_id = excluded.job_id,
                    max_failures = excluded.max_failures, updated_at = excluded.updated_at
                """, [namespace, key, kind, id.rawValue, maxFailures, now])
        }
    }

    func deleteCacheEntries(namespace: String?, key: String?) async throws -> Int {
        try onStore { store in
            try store.connection.execute(
                "DELETE FROM cache_entries WHERE (?1 IS NULL OR namespace = ?1) AND (?2 IS NULL OR key = ?2)", [namespace, key])
            return try store.connection.changes
        }
    }
}
