import DurableQueueCore

extension SQLiteJobStore {
    /// Called in the transaction that moved job `id` to a terminal state, so that what depends on
    /// the job changes with it: its cache entry records the outcome, and its group goes on.
    func jobEnded(_ id: JobID, now: Int64) throws {
        let group = try connection.scalarInt64("SELECT group_id FROM jobs WHERE id = ?", [id.rawValue])
        try jobEnded(id, group: group.map { GroupID($0) }, now: now)
    }

    /// ``jobEnded(_:now:)`` for a caller that has read the job's `group_id` already, and may know
    /// that no cache entry exists at all (`cacheInUse` false), or no dependency waits
    /// (`dependenciesWaiting` false), in this transaction.
    ///
    /// The cascade is the core's (``EndingSequences/jobEnded(_:group:cacheInUse:dependenciesWaiting:in:now:)``),
    /// run inline over ``SQLiteRows``; a job with nothing to tell costs no more than these checks.
    func jobEnded(_ id: JobID, group: GroupID?, cacheInUse: Bool = true, dependenciesWaiting: Bool = true, now: Int64) throws {
        guard cacheInUse || group != nil || dependenciesWaiting else { return }
        let rows = SQLiteRows(store: self)
        try runWithoutSuspending {
            try await EndingSequences.jobEnded(
                id, group: group, cacheInUse: cacheInUse, dependenciesWaiting: dependenciesWaiting, in: rows, now: now)
        }
    }
}
