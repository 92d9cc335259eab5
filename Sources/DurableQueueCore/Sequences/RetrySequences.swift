/// Retries by hand, written once for every store over its ``StoreRows``: one job
/// (``ManualRetry``), or the failed jobs of a dependency graph (``GraphRetry``).
package enum RetrySequences {
    /// Puts failed, cancelled or parked job `id` back to `pending` with a fresh set of attempts, its
    /// checkpoint kept, `via` (a bulk action, a graph's retry) added to the history's reason.
    ///
    /// - Throws: `jobNotFound`; `invalidArgument` when the job has not failed, been cancelled or
    ///   been parked, belongs to a sequence or group (unless parked), or another unfinished job
    ///   holds its unique key, before anything changed.
    package static func retry(_ id: JobID, via: String?, in rows: some StoreRows, now: Int64) async throws {
        guard let row = try await rows.retryRow(id) else { throw DurableQueueError.jobNotFound(id) }
        let now = try await rows.timeAfterLocks(now)
        var holder: JobID?
        if let key = row.uniqueKey { holder = try await rows.uniqueKeyHolder(key, otherThan: id) }
        try ManualRetry.check(id, state: row.state, group: row.group, uniqueKey: row.uniqueKey, uniqueKeyHolder: holder)
        try await rows.putBack(
            id, from: row.state, as: .pending, now: now, reason: ManualRetry.reason(afterAttempts: row.attempts, via: via))
    }

    /// Retries the failed jobs of the dependency graph of job `id` (every job linked to it by
    /// dependencies, either way), and with `downstream` makes the jobs their failure cancelled wait
    /// again (``GraphRetry``); the graph's rows are locked in id order before anything changes.
    ///
    /// - Returns: Each job changed, with its new state.
    /// - Throws: `jobNotFound`; `invalidArgument` when a failed job may not be retried by hand or
    ///   the graph has more than ``GraphRetry/maximumJobs`` jobs.
    package static func retryFailed(inGraphOf id: JobID, downstream: Bool, in rows: some StoreRows, now: Int64) async throws
        -> [JobID: JobState]
    {
        // Read without a lock: the graph's rows are locked below, all in id order.
        guard try await rows.currentState(of: id) != nil else { throw DurableQueueError.jobNotFound(id) }
        var nodes: Set<JobID> = [id]
        var edges: Set<GraphRetry.Edge> = []
        var frontier = [id]
        while !frontier.isEmpty {
            var next: [JobID] = []
            for edge in try await rows.edges(touching: frontier) {
                edges.insert(edge)
                for node in [edge.job, edge.parent] where nodes.insert(node).inserted { next.append(node) }
            }
            guard nodes.count <= GraphRetry.maximumJobs else {
                throw DurableQueueError.invalidArgument("graph", "the graph of job \(id) has more than \(GraphRetry.maximumJobs) jobs")
            }
            frontier = next
        }
        let states = try await rows.states(of: nodes.sorted { $0.rawValue < $1.rawValue })
        let now = try await rows.timeAfterLocks(now)
        let plan = GraphRetry.plan(states: states, edges: Array(edges), downstream: downstream)
        let reason = GraphRetry.reason(graphOf: id)
        var changed: [JobID: JobState] = [:]
        for job in plan.retry {
            try await retry(job, via: reason, in: rows, now: now)
            changed[job] = .pending
        }
        for (job, names) in plan.waitAgain.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try await rows.waitAgain(job, on: names, now: now, reason: reason)
            changed[job] = .blocked
        }
        return changed
    }
}
