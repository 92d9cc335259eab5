/// A sequence's or concurrent group's own row, as the group sequences read it.
package struct GroupRow: Sendable {
    package var kind: GroupKind
    package var state: JobState
    /// At most this many children of a concurrent group run at once (0: no limit).
    package var maxConcurrent: Int
    package var cancelRequested: Bool
    /// The group it is nested in, if any.
    package var parent: GroupID?

    package init(kind: GroupKind, state: JobState, maxConcurrent: Int, cancelRequested: Bool, parent: GroupID?) {
        self.kind = kind
        self.state = state
        self.maxConcurrent = maxConcurrent
        self.cancelRequested = cancelRequested
        self.parent = parent
    }
}

/// The row operations that ``GroupSequences`` runs on, inside the transaction under way: each
/// reads or writes rows in its store's dialect and decides nothing. A write that changes a job's
/// state appends its history row in the same call.
///
/// A store implements them once; the sequences that use them (a group's start, advance, end,
/// cancel and retry) are written once in the core.
package protocol GroupRows: Sendable {
    /// Group `id`'s row; with `locking`, held against other transactions until this one ends
    /// where the store locks rows (two nodes ending two children at once take turns).
    func group(_ id: GroupID, locking: Bool) async throws -> GroupRow?
    /// The jobs and groups directly in group `id`, by position.
    func children(of id: GroupID) async throws -> [GroupChild]
    /// The children of group `id` in one of `states` (1 to 5 of them), by position, at most `limit`
    /// (nil: all): an index search, not a read of every child.
    func children(of id: GroupID, in states: [JobState], limit: Int?) async throws -> [GroupChild]
    /// How many children of group `id` are active (``GroupChild/isActive``).
    func activeChildCount(of id: GroupID) async throws -> Int
    /// The output of the ended child of group `id` at `position`.
    func output(of id: GroupID, childAt position: Int) async throws -> String?

    /// Inserts a group row, `blocked`, with its first history row; its id.
    func insertGroup(
        _ kind: GroupKind, parent: GroupID?, position: Int, name: String?, maxConcurrent: Int, now: Int64
    ) async throws -> GroupID
    /// Inserts `job` as a blocked child where `placement` says, with its history row.
    func insertJob(_ job: NewJob, placement: GroupPlacement, now: Int64) async throws
    /// Moves group `id` from `blocked` to `running` with its history row; false if it was not blocked.
    func startGroupRow(_ id: GroupID, now: Int64, reason: String) async throws -> Bool
    /// Moves blocked job `id` to `pending` (`scheduled` while its run time is ahead), with
    /// `previousOutput` as its input if it takes its predecessor's output, and its history row;
    /// nothing if it is no longer blocked.
    func startBlockedJob(_ id: JobID, previousOutput: String?, now: Int64, reason: String) async throws
    /// Records group `id`'s end in `state` with its output or error, and its history row.
    func endGroupRow(_ id: GroupID, from: JobState, as state: JobState, output: String?, error: String?, now: Int64, reason: String)
        async throws
    /// Runs ended group `id` again (`running`, no cancel request, output or error), with its history row.
    func reopenGroupRow(_ id: GroupID, from: JobState, now: Int64, reason: String) async throws
    /// Flags group `id` as cancelled by request.
    func flagGroupCancelRequested(_ id: GroupID, now: Int64) async throws
}
