extension SQLiteJobStore {
    /// Called in the transaction that moved job `id` to a terminal state, so that what depends on
    /// the job changes with it: its cache entry records the outcome, and its group goes on.
    func jobEnded(_ id: JobID, now: Int64) throws {
        let group = try connection.scalarInt64("SELECT group_id FROM jobs WHERE id = ?", [id.rawValue])
        try jobEnded(id, group: group.map { GroupID($0) }, now: now)
    }

    /// ``jobEnded(_:now:)`` for a caller that has read the job's `group_id` already.
    func jobEnded(_ id: JobID, group: GroupID?, now: Int64) throws {
        try recordCacheOutcome(ofJob: id, now: now)
        if let group { try advanceGroup(group, now: now) }
    }
}
