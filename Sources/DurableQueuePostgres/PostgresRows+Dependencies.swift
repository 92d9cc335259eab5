import DurableQueue

extension PostgresRows: DependencyRows {
    /// `FOR SHARE`: the job cannot end unseen between this read and the commit.
    func dependencyParent(_ id: JobID) async throws -> OutcomeRow? {
        guard
            let row = try await session.rows("SELECT state, output::text, error::text FROM jobs WHERE id = $1 FOR SHARE", [id.rawValue]).first
        else { return nil }
        return OutcomeRow(state: try JobState(stored: row.string(0)), output: try row.optionalString(1), error: try row.optionalString(2))
    }

    func insertEdge(of id: JobID, to dependency: Dependency, endedParent parent: OutcomeRow?, now: Int64) async throws {
        try await session.execute(
            """
            INSERT INTO job_dependencies (job_id, name, parent_id, on_failure, outcome, output, error, resolved_at)
            VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)
            """,
            [id.rawValue, dependency.name, dependency.job.rawValue, dependency.onFailure.rawValue, parent?.state.rawValue, parent?.output,
             parent?.error, parent == nil ? nil : now])
    }

    func createBlocked(_ id: JobID) async throws {
        try await session.execute("UPDATE jobs SET state = 'blocked', created_state = 'blocked' WHERE id = $1", [id.rawValue])
    }
}
