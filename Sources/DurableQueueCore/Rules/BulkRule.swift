/// The rules of bulk actions that both stores and the façade share: which states each applies to,
/// how many jobs one transaction takes, and what the history says.
extension BulkAction {
    /// The states of the jobs this action changes.
    package var appliesTo: Set<JobState> {
        switch self {
        case .retry: [.failed, .cancelled, .parked]
        case .cancel: JobFilter.unfinished.union([.parked])
        case .delete: [.succeeded, .failed, .cancelled]
        }
    }

    /// The states a selection's jobs must be in for this action: those of `selected` it applies
    /// to (none may be left), or all it applies to.
    package func states(among selected: Set<JobState>?) -> Set<JobState> {
        selected.map { $0.intersection(appliesTo) } ?? appliesTo
    }

    /// How many jobs one transaction of a bulk action changes at most: a large selection never
    /// holds the database for long.
    package static let batchSize = 500

    /// The history reason (retry, cancel) or `deleted_jobs.reason` (delete) of a job changed by
    /// this action on `selection`.
    package func reason(_ selection: String) -> String {
        "\(rawValue) by a bulk action (\(selection))"
    }

    /// Whether a bulk delete may delete a job in `state` of a group in `groupState` (nil: no
    /// group): a finished job, unless its group has not finished (its result still needs it).
    package static func mayDelete(state: JobState, groupState: JobState?) -> Bool {
        state.isTerminal && (groupState?.isTerminal ?? true)
    }
}
