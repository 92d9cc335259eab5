import DurableQueue

extension PostgresRows: CacheRows {
    /// The key's row is created first if missing, then locked: a caller that finds another's
    /// uncommitted row waits for its commit, and callers of one key take turns.
    func lockedCacheEntry(namespace: String, key: String, kind: String, maxFailures: Int?, now: Int64) async throws
        -> CacheEntryRecord?
    {
        try await session.execute(
            """
            INSERT INTO cache_entries (namespace, key, state, kind, max_failures, updated_at)
            VALUES ($1, $2, 'inProgress', $3, $4, $5) ON CONFLICT (namespace, key) DO NOTHING
            """, [namespace, key, kind, maxFailures, now])
        return try await store.entry(session, namespace: namespace, key: key, lock: true)
    }

    func currentState(of id: JobID) async throws -> JobState? {
        try await store.stateRow(session, id, lock: false)?.state
    }

    func assignCacheEntry(namespace: String, key: String, kind: String, to id: JobID, maxFailures: Int?, now: Int64) async throws {
        try await session.execute(
            """
            INSERT INTO cache_entries (namespace, key, state, kind, job_id, max_failures, updated_at)
            VALUES ($1, $2, 'inProgress', $3, $4, $5, $6)
            ON CONFLICT (namespace, key) DO UPDATE SET
                state = 'inProgress', kind = excluded.kind, job_id = excluded.job_id,
                max_failures = excluded.max_failures, updated_at = excluded.updated_at
            """, [namespace, key, kind, id.rawValue, maxFailures, now])
    }

    func deleteCacheEntries(namespace: String?, key: String?) async throws -> Int {
        try await session.execute(
            "DELETE FROM cache_entries WHERE ($1::text IS NULL OR namespace = $1) AND ($2::text IS NULL OR key = $2)", [namespace, key])
    }
}
