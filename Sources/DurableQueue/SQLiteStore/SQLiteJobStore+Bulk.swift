extension SQLiteJobStore {
    /// Applies `action` to each of `ids` it still applies to, in one transaction: a retry and a
    /// cancel record `reason` in each job's history; a delete leaves a `deleted_jobs` line with it.
    /// A job gone, changed meanwhile, or refused by the action's rule (``BulkAction``) is left.
    ///
    /// - Returns: Each job changed, with its state after (running: a cancel was requested; for a
    ///   delete, the state it had finished in).
    package func apply(_ action: BulkAction, to ids: [JobID], reason: String, now: Int64) throws -> [JobID: JobState] {
        try write("\(action.rawValue) \(ids.count) job(s)", now: now) { now in
            var changed: [JobID: JobState] = [:]
            for id in ids {
                do {
                    switch action {
                    case .retry:
                        try retryJob(id, now: now, via: reason)
                        changed[id] = .pending
                    case .cancel:
                        switch try requestCancel(id, now: now, reason: reason) {
                        case .cancelled: changed[id] = .cancelled
                        case .requested: changed[id] = .running
                        case .alreadyFinished: continue
                        }
                    case .delete:
                        if let state = try deleteFinishedJob(id, reason: reason, now: now) { changed[id] = state }
                    }
                } catch let error as DurableQueueError where error.code == .jobNotFound || (action == .retry && error.code == .invalidArgument) {
                    continue  // gone meanwhile, or refused by the retry rule, before anything was written
                }
            }
            return changed
        }
    }

    /// Deletes job `id` if ``BulkAction/mayDelete(state:groupState:)`` allows it, leaving its
    /// `deleted_jobs` line; the state it had finished in, or nil if it was left.
    private func deleteFinishedJob(_ id: JobID, reason: String, now: Int64) throws -> JobState? {
        var found: (state: JobState, groupState: JobState?)?
        try connection.query(
            "SELECT j.state, g.state FROM jobs AS j LEFT JOIN groups AS g ON g.id = j.group_id WHERE j.id = ?", [id.rawValue]
        ) { row in found = (try JobState(stored: row.string(0)), try row.optionalString(1).map { try JobState(stored: $0) }) }
        guard let found, BulkAction.mayDelete(state: found.state, groupState: found.groupState) else { return nil }
        try connection.execute(
            """
            INSERT OR REPLACE INTO deleted_jobs (job_id, queue, kind, state, deleted_at, reason)
            SELECT id, queue, kind, state, ?2, ?3 FROM jobs WHERE id = ?1
            """, [id.rawValue, now, reason])
        try connection.execute("DELETE FROM jobs WHERE id = ?", [id.rawValue])
        return found.state
    }
}
