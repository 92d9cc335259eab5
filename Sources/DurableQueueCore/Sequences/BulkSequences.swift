/// Bulk actions on selected jobs, written once for every store over its ``StoreRows``.
package enum BulkSequences {
    /// Applies `action` to each of `ids` it still applies to: a retry and a cancel record `reason`
    /// in each job's history; a delete leaves a `deleted_jobs` line with it. A job gone, changed
    /// meanwhile, or refused by the action's rule (``BulkAction``) is left.
    ///
    /// - Returns: Each job changed, with its state after (running: a cancel was requested; for a
    ///   delete, the state it had finished in).
    package static func apply(_ action: BulkAction, to ids: [JobID], reason: String, in rows: some StoreRows, now: Int64)
        async throws -> [JobID: JobState]
    {
        var changed: [JobID: JobState] = [:]
        for id in ids {
            do {
                switch action {
                case .retry:
                    try await RetrySequences.retry(id, via: reason, in: rows, now: now)
                    changed[id] = .pending
                case .cancel:
                    switch try await CancelSequences.requestCancel(id, reason: reason, in: rows, now: now) {
                    case .cancelled: changed[id] = .cancelled
                    case .requested: changed[id] = .running
                    case .alreadyFinished: continue
                    }
                case .delete:
                    guard let row = try await rows.deletionRow(id), BulkAction.mayDelete(state: row.state, groupState: row.groupState)
                    else { continue }
                    try await rows.delete(id, reason: reason, now: try await rows.timeAfterLocks(now))
                    changed[id] = row.state
                }
            } catch let error as DurableQueueError where error.code == .jobNotFound || (action == .retry && error.code == .invalidArgument) {
                continue  // gone meanwhile, or refused by the retry rule, before anything was written
            }
        }
        return changed
    }
}
