/// A job as a cancel request reads it.
package struct CancelRow: Sendable {
    package var id: JobID
    package var state: JobState
    package var attempts: Int
    package var cancelRequested: Bool
    package var group: GroupID?
    /// How many history rows the job had when read, where the store numbers each job's history
    /// rows (SQLite); 0 where it does not. The store's writes use it; the core only carries it.
    package var historyCount: Int64

    package init(id: JobID, state: JobState, attempts: Int, cancelRequested: Bool, group: GroupID?, historyCount: Int64 = 0) {
        self.id = id
        self.state = state
        self.attempts = attempts
        self.cancelRequested = cancelRequested
        self.group = group
        self.historyCount = historyCount
    }
}

/// The row operations that ``CancelSequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol CancelRows: Sendable {
    /// Job `id` as a cancel reads it, its row locked where the store locks rows; nil if there is none.
    func cancelRow(_ id: JobID) async throws -> CancelRow?
    /// Sets running job `row`'s durable cancel flag, with its history row (`running` to `running`).
    func flagCancelRequested(_ row: CancelRow, now: Int64, reason: String) async throws
    /// Moves waiting job `row` to `cancelled`, finished at `now`, with its history row.
    func cancelWaitingJob(_ row: CancelRow, now: Int64, reason: String) async throws
}
