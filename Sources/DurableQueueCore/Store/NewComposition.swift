/// How a group runs its children.
package enum GroupKind: String, Sendable, Hashable {
    /// One after another; a child that does not succeed ends the sequence and cancels the rest.
    case sequence
    /// In parallel, at most the group's limit at once; the group ends when every child has.
    case concurrent
}

/// A tree of groups and jobs to insert in one transaction.
package indirect enum CompositionNode: Sendable, Hashable {
    /// A job; with `takesPreviousOutput` its input is the output of the step before it.
    case job(NewJob, name: String?, takesPreviousOutput: Bool)
    /// A sequence or concurrent group of children, in order.
    case group(GroupKind, [CompositionNode], maxConcurrent: Int, name: String?)

    /// Throws `invalidArgument` for a tree the store cannot run.
    package func validate(isFirstStep: Bool = true, inSequence: Bool = false) throws {
        switch self {
        case .job(let job, _, let takesPreviousOutput):
            try job.validate()
            if job.uniqueKey != nil {
                throw DurableQueueError.invalidArgument("uniqueKey", "a job in a sequence or group cannot have a unique key")
            }
            if !job.dependencies.isEmpty {
                throw DurableQueueError.invalidArgument("dependsOn", "a job in a sequence or group waits for its group, not for dependencies")
            }
            if takesPreviousOutput && (!inSequence || isFirstStep) {
                throw DurableQueueError.invalidArgument(
                    "steps", "only a step after another step of a sequence can take the previous step's output")
            }
        case .group(let kind, let children, let maxConcurrent, _):
            if maxConcurrent < 0 {
                throw DurableQueueError.invalidArgument("maxConcurrent", "\(maxConcurrent) is negative; use 0 for no limit")
            }
            let names = children.compactMap(\.name)
            if Set(names).count != names.count {
                throw DurableQueueError.invalidArgument("names", "two children of one group have the same name")
            }
            for (index, child) in children.enumerated() {
                try child.validate(isFirstStep: index == 0, inSequence: kind == .sequence)
            }
        }
    }

    /// The child's name within its parent.
    var name: String? {
        switch self {
        case .job(_, let name, _), .group(_, _, _, let name): name
        }
    }
}
