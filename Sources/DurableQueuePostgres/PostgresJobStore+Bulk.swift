import DurableQueue

extension PostgresJobStore {
    /// Applies `action` to each of `ids` it still applies to, in one transaction (rows locked in id
    /// order): a retry and a cancel record `reason` in each job's history; a delete leaves a
    /// `deleted_jobs` line with it. A job gone, changed meanwhile, or refused by the action's rule
    /// (``BulkAction``) is left.
    ///
    /// - Returns: Each job changed, with its state after (running: a cancel was requested; for a
    ///   delete, the state it had finished in).
    package func apply(_ action: BulkAction, to ids: [JobID], reason: String, now: Int64) async throws -> [JobID: JobState] {
        try await write("\(action.rawValue) \(ids.count) job(s)", now: now) { [self] session, now in
            var changed: [JobID: JobState] = [:]
            for id in ids.sorted(by: { $0.rawValue < $1.rawValue }) {
                do {
                    switch action {
                    case .retry:
                        try await retryJob(session, id, now: now, via: reason)
                        changed[id] = .pending
                    case .cancel:
                        switch try await requestCancel(session, id, now: now, reason: reason) {
                        case .cancelled: changed[id] = .cancelled
                        case .requested: changed[id] = .running
                        case .alreadyFinished: continue
                        }
                    case .delete:
                        if let state = try await deleteFinishedJob(session, id, reason: reason, now: now) { changed[id] = state }
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
    private func deleteFinishedJob(_ session: PostgresSession, _ id: JobID, reason: String, now: Int64) async throws -> JobState? {
        guard
            let row = try await session.rows(
                "SELECT j.state, g.state FROM jobs AS j LEFT JOIN groups AS g ON g.id = j.group_id WHERE j.id = $1 FOR UPDATE OF j",
                [id.rawValue]
            ).first
        else { return nil }
        let now = stamp(now)  // the job's row is locked
        let state = try JobState(stored: row.string(0))
        guard BulkAction.mayDelete(state: state, groupState: try row.optionalString(1).map { try JobState(stored: $0) }) else { return nil }
        try await session.execute(
            """
            INSERT INTO deleted_jobs (job_id, queue, kind, state, deleted_at, reason)
            SELECT id, queue, kind, state, $2, $3 FROM jobs WHERE id = $1
            ON CONFLICT (job_id) DO UPDATE SET deleted_at = excluded.deleted_at, reason = excluded.reason
            """, [id.rawValue, now, reason])
        try await session.execute("DELETE FROM jobs WHERE id = $1", [id.rawValue])
        return state
    }
}
