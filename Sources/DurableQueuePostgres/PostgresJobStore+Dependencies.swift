import DurableQueue

extension PostgresJobStore {
    /// Records the dependencies of job `id`, just inserted at `now`, and applies
    /// ``DependencyRule``: it waits `blocked` for those not ended, is cancelled by one that failed,
    /// or stays as inserted. Inside the enqueue's transaction; each job depended on is locked
    /// (`FOR SHARE`, in id order), so that it cannot end unseen between this read and the commit.
    ///
    /// - Throws: `invalidArgument` when a dependency names no job, or the job itself.
    func attachDependencies(_ session: PostgresSession, _ id: JobID, _ dependencies: [Dependency], now: Int64) async throws {
        var edges: [DependencyRecord] = []
        for dependency in dependencies.sorted(by: { $0.job.rawValue < $1.job.rawValue }) {
            guard dependency.job != id else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': a job cannot depend on itself")
            }
            guard
                let parent = try await session.rows(
                    "SELECT state, output::text, error::text FROM jobs WHERE id = $1 FOR SHARE", [dependency.job.rawValue]
                ).first
            else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': there is no job \(dependency.job)")
            }
            let state = try JobState(stored: parent.string(0))
            let ended = state.isTerminal
            try await session.execute(
                """
                INSERT INTO job_dependencies (job_id, name, parent_id, on_failure, outcome, output, error, resolved_at)
                VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)
                """,
                [id.rawValue, dependency.name, dependency.job.rawValue, dependency.onFailure.rawValue, ended ? state.rawValue : nil,
                 ended ? try parent.optionalString(1) : nil, ended ? try parent.optionalString(2) : nil, ended ? now : nil])
            edges.append(
                DependencyRecord(
                    name: dependency.name, job: dependency.job, onFailure: dependency.onFailure, outcome: ended ? state : nil, output: nil,
                    error: nil))
        }
        switch DependencyRule.verdict(state: .blocked, edges: edges) {
        case .start:
            break
        case .wait:
            // Inserted in this transaction: it is created blocked, its history starting where it is.
            try await session.execute("UPDATE jobs SET state = 'blocked', created_state = 'blocked' WHERE id = $1", [id.rawValue])
        case .cancel(let reason):
            _ = try await requestCancel(session, id, now: now, reason: reason)
        }
    }

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
