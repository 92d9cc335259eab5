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
    /// Retries the failed jobs of the dependency graph of job `id` (every job linked to it by
    /// dependencies, either way), and with `downstream` makes the jobs their failure cancelled wait
    /// again (``GraphRetry``), in one transaction.
    ///
    /// - Returns: Each job changed, with its new state.
    /// - Throws: `jobNotFound`; `invalidArgument` when a failed job may not be retried by hand (see
    ///   ``retry(_:now:)``) or the graph has more than ``GraphRetry/maximumJobs`` jobs. Nothing
    ///   changes when it throws.
    package func retryFailed(inGraphOf id: JobID, downstream: Bool, now: Int64) throws -> [JobID: JobState] {
        try write("retry the failed jobs of the graph of job \(id)", now: now) { now in
            guard try stateRow(id) != nil else { throw DurableQueueError.jobNotFound(id) }
            var nodes: Set<JobID> = [id]
            var edges: Set<GraphRetry.Edge> = []
            var frontier = [id]
            while !frontier.isEmpty {
                var next: [JobID] = []
                try connection.query(
                    """
                    SELECT job_id, parent_id, name, on_failure FROM job_dependencies
                    WHERE job_id IN (SELECT value FROM json_each(?1)) OR parent_id IN (SELECT value FROM json_each(?1))
                    """, [Self.idArray(frontier)]
                ) { row in
                    let edge = GraphRetry.Edge(
                        job: JobID(row.int64(0)), parent: JobID(row.int64(1)), name: row.string(2),
                        onFailure: Dependency.OnFailure(rawValue: row.string(3)) ?? .cancel)
                    edges.insert(edge)
                    for node in [edge.job, edge.parent] where nodes.insert(node).inserted { next.append(node) }
                }
                guard nodes.count <= GraphRetry.maximumJobs else {
                    throw DurableQueueError.invalidArgument("graph", "the graph of job \(id) has more than \(GraphRetry.maximumJobs) jobs")
                }
                frontier = next
            }
            var states: [JobID: JobState] = [:]
            try connection.query("SELECT id, state FROM jobs WHERE id IN (SELECT value FROM json_each(?))", [Self.idArray(Array(nodes))]) {
                states[JobID($0.int64(0))] = try JobState(stored: $0.string(1))
            }
            let plan = GraphRetry.plan(states: states, edges: Array(edges), downstream: downstream)
            let reason = GraphRetry.reason(graphOf: id)
            var changed: [JobID: JobState] = [:]
            for job in plan.retry {
                try retryJob(job, now: now, via: reason)
                changed[job] = .pending
            }
            for (job, names) in plan.waitAgain.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                endingHooksMayHaveAppeared()
                try connection.execute(
                    """
                    UPDATE job_dependencies SET outcome = NULL, output = NULL, error = NULL, resolved_at = NULL
                    WHERE job_id = ?1 AND name IN (SELECT value FROM json_each(?2))
                    """, [job.rawValue, Self.jsonArray(names)])
                try connection.execute(
                    "UPDATE jobs SET state = 'blocked', cancel_requested = 0, finished_at = NULL, updated_at = ?1 WHERE id = ?2",
                    [now, job.rawValue])
                try appendEvent(job, now: now, from: .cancelled, to: .blocked, attempt: 0, reason: reason)
                changed[job] = .blocked
            }
            return changed
        }
    }
}

extension SQLiteJobStore {
    /// `ids` as a JSON array of numbers, for `json_each`.
    static func idArray(_ ids: [JobID]) -> String {
        "[" + ids.map { String($0.rawValue) }.joined(separator: ",") + "]"
    }
}
