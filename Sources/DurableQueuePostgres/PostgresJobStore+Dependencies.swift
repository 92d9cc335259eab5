import DurableQueue

extension PostgresJobStore {
    /// The dependencies of job `id`, by name, with the outcome of those whose job ended.
    package func dependencies(of id: JobID) async throws -> [DependencyRecord] {
        try await read("read the dependencies of job \(id)") { [self] session in try await dependencyRecords(session, of: id) }
    }

    /// ``dependencies(of:)`` inside the caller's transaction.
    func dependencyRecords(_ session: PostgresSession, of id: JobID) async throws -> [DependencyRecord] {
        try await session.rows(
            "SELECT name, parent_id, on_failure, outcome, output::text, error::text FROM job_dependencies WHERE job_id = $1 ORDER BY name",
            [id.rawValue]
        ).map { row in
            DependencyRecord(
                name: try row.string(0), job: JobID(try row.int64(1)), onFailure: Dependency.OnFailure(rawValue: try row.string(2)) ?? .cancel,
                outcome: try row.optionalString(3).map { try JobState(stored: $0) }, output: try row.optionalString(4),
                error: try row.optionalString(5).map { try JobCodec.decode(JobFailure.self, from: $0) })
        }
    }
}
