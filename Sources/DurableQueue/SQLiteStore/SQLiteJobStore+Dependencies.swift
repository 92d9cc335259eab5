extension SQLiteJobStore {
    /// Records the dependencies of job `id`, just inserted at `now`, and applies
    /// ``DependencyRule``: it waits `blocked` for those not ended, is cancelled by one that failed,
    /// or stays as inserted. Inside the enqueue's transaction.
    ///
    /// - Throws: `invalidArgument` when a dependency names no job, or the job itself.
    func attachDependencies(_ id: JobID, _ dependencies: [Dependency], now: Int64) throws {
        var edges: [DependencyRecord] = []
        for dependency in dependencies {
            guard dependency.job != id else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': a job cannot depend on itself")
            }
            var parent: (state: JobState, output: String?, error: String?)?
            try connection.query("SELECT state, output, error FROM jobs WHERE id = ?", [dependency.job.rawValue]) { row in
                parent = (try JobState(stored: row.string(0)), row.optionalString(1), row.optionalString(2))
            }
            guard let parent else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': there is no job \(dependency.job)")
            }
            let ended = parent.state.isTerminal
            endingHooksMayHaveAppeared()
            try connection.execute(
                """
                INSERT INTO job_dependencies (job_id, name, parent_id, on_failure, outcome, output, error, resolved_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [id.rawValue, dependency.name, dependency.job.rawValue, dependency.onFailure.rawValue, ended ? parent.state.rawValue : nil,
                 ended ? parent.output : nil, ended ? parent.error : nil, ended ? now : nil])
            edges.append(
                DependencyRecord(
                    name: dependency.name, job: dependency.job, onFailure: dependency.onFailure, outcome: ended ? parent.state : nil,
                    output: nil, error: nil))
        }
        switch DependencyRule.verdict(state: .blocked, edges: edges) {
        case .start:
            break
        case .wait:
            // Inserted in this transaction: it is created blocked, its history starting where it is.
            try connection.execute(Self.createdBlockedStatement, [id.rawValue])
        case .cancel(let reason):
            _ = try requestCancel(id, now: now, reason: reason)
        }
    }

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
            "SELECT name, parent_id, on_failure, outcome, output, error FROM job_dependencies WHERE job_id = ? ORDER BY name", [id.rawValue]
        ) { row in
            records.append(
                DependencyRecord(
                    name: row.string(0), job: JobID(row.int64(1)), onFailure: Dependency.OnFailure(rawValue: row.string(2)) ?? .cancel,
                    outcome: try row.optionalString(3).map { try JobState(stored: $0) }, output: row.optionalString(4),
                    error: try row.optionalString(5).map { try JobCodec.decode(JobFailure.self, from: $0) }))
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
