/// Dependencies attached at enqueue, written once for every store over its ``StoreRows``; the
/// verdict is ``DependencyRule``'s.
package enum DependencySequences {
    /// Attaches each inserted job's dependencies (``attach(_:to:in:now:)``); a job that a unique
    /// key kept from being inserted has none attached.
    package static func attach(of jobs: [NewJob], outcomes: [EnqueueOutcome], in rows: some StoreRows, now: Int64) async throws {
        for (job, outcome) in zip(jobs, outcomes) where !job.dependencies.isEmpty {
            switch outcome {
            case .inserted(let id), .replaced(let id, _): try await attach(job.dependencies, to: id, in: rows, now: now)
            case .existing: continue
            }
        }
    }

    /// Records the dependencies of job `id`, just inserted at `now`, in job order, and applies
    /// ``DependencyRule``: the job waits `blocked` for those not ended, is cancelled by one that
    /// failed, or stays as inserted.
    ///
    /// - Throws: `invalidArgument` when a dependency names no job, or the job itself.
    package static func attach(_ dependencies: [Dependency], to id: JobID, in rows: some StoreRows, now: Int64) async throws {
        var edges: [DependencyRecord] = []
        for dependency in dependencies.sorted(by: { $0.job.rawValue < $1.job.rawValue }) {
            guard dependency.job != id else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': a job cannot depend on itself")
            }
            guard let parent = try await rows.dependencyParent(dependency.job) else {
                throw DurableQueueError.invalidArgument("dependsOn", "dependency '\(dependency.name)': there is no job \(dependency.job)")
            }
            let ended = parent.state.isTerminal
            try await rows.insertEdge(of: id, to: dependency, endedParent: ended ? parent : nil, now: now)
            edges.append(
                DependencyRecord(
                    name: dependency.name, job: dependency.job, onFailure: dependency.onFailure, outcome: ended ? parent.state : nil,
                    output: nil, error: nil))
        }
        switch DependencyRule.verdict(state: .blocked, edges: edges) {
        case .start:
            break
        case .wait:
            try await rows.createBlocked(id)
        case .cancel(let reason):
            _ = try await CancelSequences.requestCancel(id, reason: reason, in: rows, now: now)
        }
    }
}
