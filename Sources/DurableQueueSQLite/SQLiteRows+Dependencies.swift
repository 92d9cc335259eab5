import DurableQueueCore

extension SQLiteRows: DependencyRows {
    func dependencyParent(_ id: JobID) async throws -> OutcomeRow? {
        try onStore { store in
            var parent: OutcomeRow?
            try store.connection.query("SELECT state, output, error FROM jobs WHERE id = ?", [id.rawValue]) { row in
                parent = OutcomeRow(state: try JobState(stored: row.string(0)), output: row.optionalString(1), error: row.optionalString(2))
            }
            return parent
        }
    }

    func insertEdge(of id: JobID, to dependency: Dependency, endedParent parent: OutcomeRow?, now: Int64) async throws {
        try onStore { store in
            store.endingHooksMayHaveAppeared()
            try store.connection.execute(
                """
                INSERT INTO job_dependencies (job_id, name, parent_id, on_failure, outcome, output, error, resolved_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [id.rawValue, dependency.name, dependency.job.rawValue, dependency.onFailure.rawValue, parent?.state.rawValue, parent?.output,
                 parent?.error, parent == nil ? nil : now])
        }
    }

    func createBlocked(_ id: JobID) async throws {
        try onStore { try $0.connection.execute(SQLiteJobStore.createdBlockedStatement, [id.rawValue]) }
    }
}
