/// Cancels, written once for every store over its ``StoreRows``: the decision is
/// ``CancelRequest``'s; a job cancelled at once takes what depends on it along
/// (``EndingSequences``).
package enum CancelSequences {
    /// The reason a user's cancel writes in the history.
    package static let requestedReason = "cancel requested"

    /// Cancels job `id`: at once if it waits (with what depends on it), through its durable cancel
    /// flag if it runs (it never runs again whatever happens to its worker).
    ///
    /// - Throws: `jobNotFound`.
    package static func requestCancel(_ id: JobID, reason: String, in rows: some StoreRows, now: Int64) async throws -> CancelOutcome {
        guard let row = try await rows.cancelRow(id) else { throw DurableQueueError.jobNotFound(id) }
        let now = try await rows.timeAfterLocks(now)
        let decision = CancelRequest.decide(state: row.state, cancelRequested: row.cancelRequested)
        switch decision.change {
        case .none:
            break
        case .flag:
            try await rows.flagCancelRequested(row, now: now, reason: reason)
        case .cancel:
            try await rows.cancelWaitingJob(row, now: now, reason: reason)
            try await EndingSequences.jobEnded(id, group: row.group, in: rows, now: now)
        }
        return decision.outcome
    }
}
