/// What ``JobQueue/Jobs/apply(_:to:dryRun:)`` does to each job of a selection.
public enum BulkAction: String, Sendable, Hashable, CaseIterable {
    /// A failed or cancelled job goes back to `pending` with fresh attempts, as ``JobQueue/Jobs/retry(_:)-(JobID)``
    /// does; jobs of a sequence or group, and jobs whose unique key another unfinished job holds,
    /// are left as they are.
    case retry
    /// An unfinished job is cancelled, as ``JobQueue/Jobs/cancel(_:)-(JobID)`` does (a running one is asked to stop).
    case cancel
    /// A finished job is deleted with its history, tags and steps (jobs of an unfinished group are
    /// kept); its id, queue, kind, state, the time and the selection stay in `deleted_jobs`.
    case delete
}

/// What a bulk action did, or with `dryRun` would do.
public struct BulkResult: Sendable, Hashable {
    /// The action.
    public var action: BulkAction
    /// The jobs of the selection the action applies to (retry: failed or cancelled; cancel:
    /// unfinished; delete: finished), counted when the action started.
    public var matched: Int
    /// The jobs changed: 0 for a dry run. Below `matched` when some were left as they were (see
    /// ``BulkAction``) or changed meanwhile.
    public var changed: Int
    /// Whether nothing was changed, only counted.
    public var dryRun: Bool

    /// Creates a result.
    public init(action: BulkAction, matched: Int, changed: Int, dryRun: Bool) {
        self.action = action
        self.matched = matched
        self.changed = changed
        self.dryRun = dryRun
    }
}
