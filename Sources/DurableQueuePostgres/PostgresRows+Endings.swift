import DurableQueue

extension PostgresRows: EndingRows {
    /// One read, and none more for a job that computes no cache key (most jobs).
    func cachedEnding(of id: JobID) async throws -> OutcomeRow? {
        guard
            let row = try await session.rows(
                """
                SELECT j.state, j.output::text, j.error::text FROM jobs AS j
                WHERE j.id = $1 AND EXISTS (SELECT 1 FROM cache_entries WHERE job_id = $1)
                """, [id.rawValue]
            ).first
        else { return nil }
        return OutcomeRow(state: try JobState(stored: row.string(0)), output: try row.optionalString(1), error: try row.optionalString(2))
    }

    func recordCacheOutcome(
        ofJob id: JobID, state: CacheEntryRecord.State, output: String?, error: String?, countsFailure: Bool, now: Int64
    ) async throws {
        try await session.execute(
            """
            UPDATE cache_entries SET state = $2, output = $3::jsonb, error = $4::jsonb, failures = failures + $5, updated_at = $6
            WHERE job_id = $1
            """, [id.rawValue, state.rawValue, output, error, countsFailure ? 1 : 0, now])
    }

    func resolveEdges(ofParent id: JobID, now: Int64) async throws -> [JobID] {
        try await session.rows(
            """
            WITH resolved AS (
                UPDATE job_dependencies AS d
                SET outcome = p.state, output = p.output, error = p.error, resolved_at = $2
                FROM (SELECT state, output, error FROM jobs WHERE id = $1 AND state IN ('succeeded', 'failed', 'cancelled')) AS p
                WHERE d.parent_id = $1 AND d.outcome IS NULL
                RETURNING d.job_id
            )
            SELECT DISTINCT job_id FROM resolved ORDER BY job_id
            """, [id.rawValue, now]
        ).map { JobID(try $0.int64(0)) }
    }

    func dependentRow(_ id: JobID) async throws -> (state: JobState, runAt: Int64)? {
        guard let row = try await session.rows("SELECT state, run_at FROM jobs WHERE id = $1 FOR NO KEY UPDATE", [id.rawValue]).first else {
            return nil
        }
        return (try JobState(stored: row.string(0)), try row.int64(1))
    }

    func dependencyRecords(of id: JobID) async throws -> [DependencyRecord] {
        try await store.dependencyRecords(session, of: id)
    }

    func startDependent(_ id: JobID, as state: JobState, now: Int64, reason: String) async throws {
        try await session.execute("UPDATE jobs SET state = $1, updated_at = $2 WHERE id = $3", [state.rawValue, now, id.rawValue])
        try await store.appendEvent(session, id, now: now, from: .blocked, to: state, attempt: 0, reason: reason)
    }
}
