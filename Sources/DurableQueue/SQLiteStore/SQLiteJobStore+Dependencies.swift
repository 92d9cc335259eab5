extension SQLiteJobStore {
    /// Records the dependencies of job `id`, just inserted at `now`, and applies
    /// ``DependencyRule``: it waits `blocked` for those not ended, is cancelled by one that failed,
    /// or stays as inserted. Inside the enqueue's transaction.
    ///
    /// - Throws: `invalidArgument` when a dependency names no job.
    func attachDependencies(_ id: JobID, _ dependencies: [Dependency], now: Int64) throws {
        var ended: [DependencyRule.Ended] = []
        var waiting: [JobID] = []
        for dependency in dependencies {
            var parent: (state: JobState, output: String?, error: String?)?
            try connection.query("SELECT state, output, error FROM jobs WHERE id = ?", [dependency.job.rawValue]) { row in
                parent = (try JobState(stored: row.string(0)), row.optionalString(1), row.optionalString(2))
            }
            guard let parent, dependency.job != id else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': there is no job \(dependency.job)")
            }
            let outcome = parent.state.isTerminal ? parent.state : nil
            try connection.execute(
                """
                INSERT INTO job_dependencies (job_id, name, parent_id, on_failure, outcome, output, error, resolved_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, CASE WHEN ?5 IS NULL THEN NULL ELSE ?8 END)
                """,
                [id.rawValue, dependency.name, dependency.job.rawValue, dependency.onFailure.rawValue, outcome?.rawValue,
                 outcome == nil ? nil : parent.output, outcome == nil ? nil : parent.error, now])
            if let outcome {
                ended.append(DependencyRule.Ended(name: dependency.name, job: dependency.job, onFailure: dependency.onFailure, outcome: outcome))
            } else {
                waiting.append(dependency.job)
            }
        }
        var found: JobState?
        try connection.query("SELECT state FROM jobs WHERE id = ?", [id.rawValue]) { found = try JobState(stored: $0.string(0)) }
        guard let inserted = found else { throw DurableQueueError.jobNotFound(id) }
        switch DependencyRule.verdict(state: .blocked, ended: ended, remaining: waiting.count) {
        case .start:
            break
        case .wait:
            try connection.execute("UPDATE jobs SET state = 'blocked', updated_at = ? WHERE id = ?", [now, id.rawValue])
            try appendEvent(id, now: now, from: inserted, to: .blocked, attempt: 0, reason: DependencyRule.blockedReason(waiting))
        case .cancel(let reason):
            try connection.execute(
                "UPDATE jobs SET state = 'cancelled', cancel_requested = 1, finished_at = ?1, updated_at = ?1 WHERE id = ?2", [now, id.rawValue])
            try appendEvent(id, now: now, from: inserted, to: .cancelled, attempt: 0, reason: reason)
        }
    }

    /// Job `id` has ended: the dependencies that waited for it record its outcome and output, and
    /// each job that waits for it starts, keeps waiting or is cancelled (``DependencyRule``; a
    /// cancel ends, in turn, what waits for that job). Inside the transaction that ended it.
    func resolveDependents(of id: JobID, now: Int64) throws {
        var dependents: [JobID] = []
        try connection.query(
            "SELECT DISTINCT job_id FROM job_dependencies WHERE parent_id = ? AND outcome IS NULL ORDER BY job_id", [id.rawValue]
        ) { dependents.append(JobID($0.int64(0))) }
        guard !dependents.isEmpty else { return }
        try connection.execute(
            """
            UPDATE job_dependencies
            SET outcome = p.state, output = p.output, error = p.error, resolved_at = ?2
            FROM (SELECT state, output, error FROM jobs WHERE id = ?1 AND state IN ('succeeded', 'failed', 'cancelled')) AS p
            WHERE parent_id = ?1 AND outcome IS NULL
            """, [id.rawValue, now])
        for dependent in dependents {
            var row: (state: JobState, runAt: Int64)?
            try connection.query("SELECT state, run_at FROM jobs WHERE id = ?", [dependent.rawValue]) { found in
                row = (try JobState(stored: found.string(0)), found.int64(1))
            }
            guard let row else { continue }
            var ended: [DependencyRule.Ended] = []
            var remaining = 0
            try connection.query("SELECT name, parent_id, on_failure, outcome FROM job_dependencies WHERE job_id = ?", [dependent.rawValue]) { edge in
                guard let outcome = edge.optionalString(3) else { return remaining += 1 }
                ended.append(
                    DependencyRule.Ended(
                        name: edge.string(0), job: JobID(edge.int64(1)), onFailure: Dependency.OnFailure(rawValue: edge.string(2)) ?? .cancel,
                        outcome: try JobState(stored: outcome)))
            }
            switch DependencyRule.verdict(state: row.state, ended: ended, remaining: remaining) {
            case .wait:
                continue
            case .start(let reason):
                let state = DependencyRule.startState(runAt: row.runAt, now: now)
                try connection.execute("UPDATE jobs SET state = ?, updated_at = ? WHERE id = ?", [state.rawValue, now, dependent.rawValue])
                try appendEvent(dependent, now: now, from: .blocked, to: state, attempt: 0, reason: reason)
            case .cancel(let reason):
                _ = try requestCancel(dependent, now: now, reason: reason)
            }
        }
    }
}

extension SQLiteJobStore {
    /// The dependencies of job `id`, by name, with the outcome of those whose job ended.
    package func dependencies(of id: JobID) throws -> [DependencyRecord] {
        try read("read the dependencies of job \(id)") {
            var records: [DependencyRecord] = []
            try connection.query(
                "SELECT name, parent_id, on_failure, outcome, output, error FROM job_dependencies WHERE job_id = ? ORDER BY name",
                [id.rawValue]
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
        try write("retry the failed jobs of the graph of job \(id)") {
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
