import DurableQueueCore

extension SQLiteJobStore {
    /// Cancels job `id` as a user's request does (``CancelSequences/requestCancel(_:reason:in:now:)``),
    /// inside the write transaction under way.
    ///
    /// - Throws: `jobNotFound`.
    func requestCancel(_ id: JobID, now: Int64, reason: String) throws -> CancelOutcome {
        let rows = SQLiteRows(store: self)
        return try runWithoutSuspending { try await CancelSequences.requestCancel(id, reason: reason, in: rows, now: now) }
    }

    /// What a change of job `id` reads of its row first, or nil if there is no such job: the
    /// `event_count` numbers the change's history row (its UPDATE raises the count), the group is
    /// the one to advance if the job ends.
    func stateRow(_ id: JobID) throws -> StateRow? {
        var result: StateRow?
        try connection.query(
            "SELECT state, attempts, cancel_requested, event_count, group_id FROM jobs WHERE id = ?", [id.rawValue]
        ) { row in
            result = StateRow(
                state: try JobState(stored: row.string(0)), attempts: Int(row.int64(1)), cancelRequested: row.int64(2) != 0,
                eventCount: row.int64(3), group: row.optionalInt64(4).map { GroupID($0) })
        }
        return result
    }

    /// A job's row as ``stateRow(_:)`` reads it.
    struct StateRow {
        let state: JobState
        let attempts: Int
        let cancelRequested: Bool
        let eventCount: Int64
        let group: GroupID?
    }
}
