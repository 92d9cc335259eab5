/// A job as a retry by hand reads it.
package struct RetryRow: Sendable {
    package var state: JobState
    package var attempts: Int
    package var group: GroupID?
    package var uniqueKey: String?

    package init(state: JobState, attempts: Int, group: GroupID?, uniqueKey: String?) {
        self.state = state
        self.attempts = attempts
        self.group = group
        self.uniqueKey = uniqueKey
    }
}

/// The row operations that ``RetrySequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol RetryRows: Sendable {
    /// The time to stamp from here on: `now`, or a later time read once the locks taken so far are
    /// held (a store whose transaction holds its lock from the start returns `now`).
    func timeAfterLocks(_ now: Int64) async throws -> Int64
    /// Job `id` as a retry reads it, its row locked where the store locks rows; nil if there is none.
    func retryRow(_ id: JobID) async throws -> RetryRow?
    /// Another unfinished job than `id` that holds unique key `key`, if any.
    func uniqueKeyHolder(_ key: String, otherThan id: JobID) async throws -> JobID?
    /// Puts job `id`, in `from`, back in `state` with a fresh set of attempts, due at `now`, its
    /// checkpoint kept and its cancel request and lost attempts cleared, with its history row.
    func putBack(_ id: JobID, from: JobState, as state: JobState, now: Int64, reason: String) async throws

    /// The dependency edges of the jobs `ids`, either way (as dependent or as dependency).
    func edges(touching ids: [JobID]) async throws -> [GraphRetry.Edge]
    /// The states of the jobs `ids`, their rows locked in id order where the store locks rows.
    func states(of ids: [JobID]) async throws -> [JobID: JobState]
    /// Makes cancelled job `id` wait again on its dependencies `names` (their outcomes forgotten),
    /// `blocked` with its cancel request cleared, with its history row.
    func waitAgain(_ id: JobID, on names: [String], now: Int64, reason: String) async throws

    /// Job `id`'s state and its group's, its row locked where the store locks rows; nil if there is none.
    func deletionRow(_ id: JobID) async throws -> (state: JobState, groupState: JobState?)?
    /// Deletes job `id` (its history and satellite rows go with it), leaving a `deleted_jobs` line
    /// with `reason`.
    func delete(_ id: JobID, reason: String, now: Int64) async throws
}
