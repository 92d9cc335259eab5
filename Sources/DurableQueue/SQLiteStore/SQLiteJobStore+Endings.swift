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
    func jobEnded(_ id: JobID, group: GroupID?, cacheInUse: Bool = true, dependenciesWaiting: Bool = true, now: Int64) throws {
        if cacheInUse { try recordCacheOutcome(ofJob: id, now: now) }
        if let group { try advanceGroup(group, now: now) }
        if dependenciesWaiting { try resolveDependents(of: id, now: now) }
    }
}
