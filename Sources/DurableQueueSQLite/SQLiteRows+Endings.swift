import DurableQueueCore

extension SQLiteRows: EndingRows {
    /// The entry's existence is checked first (a constant subquery, one probe of its index): most
    /// jobs compute no cache key, and their rows are then not read.
    func cachedEnding(of id: JobID) async throws -> OutcomeRow? {
        try onStore { store in
            var ended: OutcomeRow?
            try store.connection.query(
                "SELECT state, output, error FROM jobs WHERE EXISTS (SELECT 1 FROM cache_entries WHERE job_id = ?1) AND id = ?1",
                [id.rawValue]
            ) { row in
                ended = OutcomeRow(state: try JobState(stored: row.string(0)), output: row.optionalString(1), error: row.optionalString(2))
            }
            return ended
        }
    }

    func recordCacheOutcome(
        ofJob id: JobID, state: CacheEntryRecord.State, output: String?, error: String?, countsFailure: Bool, now: Int64
    ) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE cache_entries SET state = ?2, output = ?3, error = ?4, failures = failures + ?5, updated_at = ?6
                WHERE job_id = ?1
                """, [id.rawValue, state.rawValue, output, error, countsFailure ? 1 : 0, now])
        }
    }

    /// A probe of idx_job_dependencies_waiting first: most jobs that end have no dependent waiting
    /// for them, and SQLite runs an `UPDATE … FROM … RETURNING` through a temporary b-tree, which
    /// cost every ending in a file where some other job waited for a dependency 80,000
    /// instructions (callgrind, `durableq-bench --only crowded`).
    func resolveEdges(ofParent id: JobID, now: Int64) async throws -> [JobID] {
        try onStore { store in
            guard try store.connection.scalarInt64(Self.hasWaitingDependentStatement, [id.rawValue]) == 1 else { return [] }
            var dependents: Set<JobID> = []
            try store.connection.query(
                """
                UPDATE job_dependencies
                SET outcome = p.state, output = p.output, error = p.error, resolved_at = ?2
                FROM (SELECT state, output, error FROM jobs WHERE id = ?1 AND state IN ('succeeded', 'failed', 'cancelled')) AS p
                WHERE parent_id = ?1 AND outcome IS NULL
                RETURNING job_id
                """, [id.rawValue, now]
            ) { dependents.insert(JobID($0.int64(0))) }
            return dependents.sorted { $0.rawValue < $1.rawValue }
        }
    }

    /// Whether a dependency on job `?1` is still waiting for its outcome.
    static let hasWaitingDependentStatement =
        "SELECT EXISTS (SELECT 1 FROM job_dependencies WHERE parent_id = ?1 AND outcome IS NULL)"

    func dependentRow(_ id: JobID) async throws -> (state: JobState, runAt: Int64)? {
        try onStore { store in
            var row: (state: JobState, runAt: Int64)?
            try store.connection.query("SELECT state, run_at FROM jobs WHERE id = ?", [id.rawValue]) { found in
                row = (try JobState(stored: found.string(0)), found.int64(1))
            }
            return row
        }
    }

    func dependencyRecords(of id: JobID) async throws -> [DependencyRecord] {
        try onStore { try $0.dependencyRecords(of: id) }
    }

    func startDependent(_ id: JobID, as state: JobState, now: Int64, reason: String) async throws {
        try onStore { store in
            try store.connection.execute("UPDATE jobs SET state = ?, updated_at = ? WHERE id = ?", [state.rawValue, now, id.rawValue])
            try store.appendEvent(id, now: now, from: .blocked, to: state, attempt: 0, reason: reason)
        }
    }
}
