import DurableQueueCore

extension SQLiteJobStore {
    /// Makes job `?1`, inserted in the transaction under way, one created `blocked`.
    static let createdBlockedStatement = "UPDATE jobs SET state = 'blocked', created_state = 'blocked' WHERE id = ?1"

    /// The dependencies of job `id`, by name, with the outcome of those whose job ended.
    package func dependencies(of id: JobID) throws -> [DependencyRecord] {
        try read("read the dependencies of job \(id)") { try dependencyRecords(of: id) }
    }

    /// ``dependencies(of:)`` inside the caller's transaction.
    func dependencyRecords(of id: JobID) throws -> [DependencyRecord] {
        var records: [DependencyRecord] = []
        try connection.query(
            """
            SELECT d.name, d.parent_id, d.on_failure, d.outcome, d.output, d.error, p.kind, p.version
            FROM job_dependencies AS d LEFT JOIN jobs AS p ON p.id = d.parent_id
            WHERE d.job_id = ? ORDER BY d.name
            """, [id.rawValue]
        ) { row in
            records.append(
                DependencyRecord(
                    name: row.string(0), job: JobID(row.int64(1)), onFailure: Dependency.OnFailure(rawValue: row.string(2)) ?? .cancel,
                    outcome: try row.optionalString(3).map { try JobState(stored: $0) }, output: row.optionalString(4),
                    error: try row.optionalString(5).map { try JobCodec.decode(JobFailure.self, from: $0) },
                    parent: row.optionalString(6).map { KindVersion(kind: $0, version: Int(row.int64(7))) }))
        }
        return records
    }
}

extension SQLiteJobStore {
    /// `ids` as a JSON array of numbers, for `json_each`.
    static func idArray(_ ids: [JobID]) -> String {
        "[" + ids.map { String($0.rawValue) }.joined(separator: ",") + "]"
    }
}
