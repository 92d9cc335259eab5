import DurableQueue

extension PostgresJobStore {
    /// Cancels job `id` as a user's request does (``CancelSequences/requestCancel(_:reason:in:now:)``),
    /// inside the caller's transaction.
    ///
    /// - Throws: `jobNotFound`.
    func requestCancel(_ session: PostgresSession, _ id: JobID, now: Int64, reason: String) async throws -> CancelOutcome {
        try await CancelSequences.requestCancel(id, reason: reason, in: PostgresRows(store: self, session: session), now: now)
    }

    /// Job `id`'s state, attempt count and cancel flag, or nil if there is no such job; `lock` holds
    /// its row until the transaction ends, so that what is decided from it stays true.
    func stateRow(_ session: PostgresSession, _ id: JobID, lock: Bool) async throws -> (state: JobState, attempts: Int, cancel: Bool)? {
        guard
            let row = try await session.rows(
                "SELECT state, attempts, cancel_requested FROM jobs WHERE id = $1" + (lock ? " FOR NO KEY UPDATE" : ""), [id.rawValue]
            ).first
        else { return nil }
        return (try JobState(stored: row.string(0)), try row.int(1), try row.bool(2))
    }
}
