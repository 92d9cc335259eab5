/// What becomes of a job that waits for others (``Dependency``) as they end: the one rule both
/// stores apply, at enqueue and whenever a job it depends on ends.
package enum DependencyRule {
    /// What the store does to the dependent.
    package enum Verdict: Sendable, Hashable {
        /// It keeps waiting (`blocked`) for `remaining` dependencies.
        case wait(remaining: Int)
        /// Every dependency has ended: it starts (`pending`, or `scheduled` until its run time).
        case start(reason: String)
        /// A dependency failed whose failure cancels it.
        case cancel(reason: String)
    }

    /// The verdict for a dependent in `state` whose dependencies are `edges` (those whose job has
    /// ended carry its outcome). Only a `blocked` dependent changes: one cancelled or started
    /// otherwise meanwhile is left (``Verdict/wait(remaining:)`` with 0).
    package static func verdict(state: JobState, edges: [DependencyRecord]) -> Verdict {
        guard state == .blocked else { return .wait(remaining: 0) }
        // The first by name, whatever order the store read them in.
        if let failed = edges.sorted(by: { $0.name < $1.name }).first(where: { $0.outcome.map { $0 != .succeeded } == true && $0.onFailure == .cancel }),
            let outcome = failed.outcome
        {
            return .cancel(reason: "dependency '\(failed.name)' (job \(failed.job)) \(outcome.rawValue)")
        }
        let remaining = edges.filter { $0.outcome == nil }.count
        if remaining > 0 { return .wait(remaining: remaining) }
        return .start(reason: "its \(edges.count) dependenc\(edges.count == 1 ? "y" : "ies") ended")
    }

    /// The state a dependent takes when it starts: `pending`, or `scheduled` while `runAt` is after `now`.
    package static func startState(runAt: Int64, now: Int64) -> JobState {
        runAt > now ? .scheduled : .pending
    }

    /// Throws `invalidArgument` unless every name is non-empty and unique.
    package static func validate(_ dependencies: [Dependency]) throws {
        var names: Set<String> = []
        for dependency in dependencies {
            guard !dependency.name.isEmpty else { throw DurableQueueError.invalidArgument("dependsOn", "a dependency's name must not be empty") }
            guard names.insert(dependency.name).inserted else {
                throw DurableQueueError.invalidArgument("dependsOn", "two dependencies are named '\(dependency.name)'")
            }
        }
    }
}
