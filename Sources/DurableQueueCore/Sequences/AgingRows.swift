/// A pending job whose priority rose by one (``AgingRows/raisePriorities(ofQueue:below:changedBy:now:)``).
package struct RisenJob: Sendable, Hashable {
    package var id: JobID
    /// The priority it rose to.
    package var priority: Int
    /// Its attempts so far (its history row's attempt).
    package var attempts: Int
    /// The number its history row takes among the job's, where the store numbers them in the job's
    /// row (SQLite's `event_count`, raised with the priority); 0 where the store does not.
    package var historyNumber: Int64

    package init(id: JobID, priority: Int, attempts: Int, historyNumber: Int64) {
        self.id = id
        self.priority = priority
        self.attempts = attempts
        self.historyNumber = historyNumber
    }
}

/// The row operations that ``AgingSequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol AgingRows: Sendable {
    /// Raises by one the priority of every `pending` job of queue `queue` whose priority is below
    /// `limit` and that last changed (`updated_at`) at or before `changedBy`, stamped `now`.
    func raisePriorities(ofQueue queue: String, below limit: Int, changedBy: Int64, now: Int64) async throws -> [RisenJob]
    /// Appends each risen job's history row, `pending` to `pending` with its reason (`reasons`,
    /// in the same order), in that order.
    func noteRisen(_ jobs: [RisenJob], reasons: [String], now: Int64) async throws
}
