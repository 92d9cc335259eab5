/// Which jobs of a dependency graph a retry of its failed jobs changes: the one rule both stores
/// apply (``JobQueue/Jobs/retryFailed(inGraphOf:downstream:)``).
package enum GraphRetry {
    /// An edge of the graph: `job` waits for `parent` under the name `name`.
    package struct Edge: Sendable, Hashable {
        package var job: JobID
        package var parent: JobID
        package var name: String
        package var onFailure: Dependency.OnFailure

        package init(job: JobID, parent: JobID, name: String, onFailure: Dependency.OnFailure) {
            self.job = job
            self.parent = parent
            self.name = name
            self.onFailure = onFailure
        }
    }

    /// What the store writes.
    package struct Plan: Sendable, Hashable {
        /// Failed jobs, back to `pending` with fresh attempts (as a manual retry).
        package var retry: [JobID]
        /// Jobs downstream that a failure cancelled, back to `blocked`, with the names of their
        /// edges that wait again (those from a job retried or waiting again).
        package var waitAgain: [JobID: [String]]
    }

    /// The plan for a graph whose jobs are in `states` and linked by `edges`: every failed job is
    /// retried; with `downstream`, so is every cancelled job that a retried job or another such job
    /// cancelled through an edge whose failure cancels (its edges from them wait again), down the
    /// graph. Jobs that ran anyway, or were cancelled otherwise, are left.
    package static func plan(states: [JobID: JobState], edges: [Edge], downstream: Bool) -> Plan {
        let retry = states.filter { $0.value == .failed }.keys.sorted { $0.rawValue < $1.rawValue }
        guard downstream else { return Plan(retry: retry, waitAgain: [:]) }
        var again = Set(retry)
        var waitAgain: [JobID: [String]] = [:]
        var frontier = retry
        while !frontier.isEmpty {
            var next: [JobID] = []
            for edge in edges where frontier.contains(edge.parent) && edge.onFailure == .cancel && states[edge.job] == .cancelled {
                if !again.contains(edge.job) {
                    again.insert(edge.job)
                    next.append(edge.job)
                }
            }
            frontier = next
        }
        for edge in edges where again.contains(edge.parent) && again.contains(edge.job) && !retry.contains(edge.job) {
            waitAgain[edge.job, default: []].append(edge.name)
        }
        return Plan(retry: retry, waitAgain: waitAgain.mapValues { $0.sorted() })
    }

    /// The most jobs a graph may have for a retry to walk it.
    package static let maximumJobs = 10_000

    /// The history reason of a job a graph retry changed.
    package static func reason(graphOf id: JobID) -> String {
        "retry of the failed jobs of the graph of job \(id)"
    }
}
