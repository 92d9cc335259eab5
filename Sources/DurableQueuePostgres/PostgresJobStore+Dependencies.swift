import DurableQueue

extension PostgresJobStore {
    /// The dependencies of job `id`, by name, with the outcome of those whose job ended.
    package func dependencies(of id: JobID) async throws -> [DependencyRecord] {
        try await read("read the dependencies of job \(id)") { [self] session in try await dependencyRecords(session, of: id) }
    }

    /// ``dependencies(of:)`` inside the caller's transaction.
    func dependencyRecords(_ session: PostgresSession, of id: JobID) async throws -> [DependencyRecord] {
        try await session.rows(
            """
            SELECT d.name, d.parent_id, d.on_failure, d.outcome, d.output::text, d.error::text, p.kind, p.version
            FROM job_dependencies AS d LEFT JOIN jobs AS p ON p.id = d.parent_id
            WHERE d.job_id = $1 ORDER BY d.name
            """,
            [id.rawValue]
        ).map { row in
            DependencyRecord(
                name: try row.string(0), job: JobID(try row.int64(1)), onFailure: Dependency.OnFailure(rawValue: try row.string(2)) ?? .cancel,
                outcome: try row.optionalString(3).map { try JobState(stored: $0) }, output: try row.optionalString(4),
                error: try row.optionalString(5).map { try JobCodec.decode(JobFailure.self, from: $0) },
                parent: try row.optionalString(6).map { KindVersion(kind: $0, version: try row.int(7)) })
        }
    }
}
