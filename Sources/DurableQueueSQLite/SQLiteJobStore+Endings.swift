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
    ///
    /// Each of the file's flags is narrowed to this job first, by a probe of an index: most jobs
    /// that end have no cache entry and no dependent, and the cascade run inline cost each ending
    /// about 12,000 instructions even when it found nothing, in a file where other jobs used the
    /// cache or dependencies (callgrind, `durableq-bench --only crowded`).
    func jobEnded(_ id: JobID, group: GroupID?, cacheInUse: Bool = true, dependenciesWaiting: Bool = true, now: Int64) throws {
        let cache = try cacheInUse && connection.scalarInt64(Self.hasCacheEntryStatement, [id.rawValue]) == 1
        let dependents = try dependenciesWaiting && connection.scalarInt64(SQLiteRows.hasWaitingDependentStatement, [id.rawValue]) == 1
        guard cache || group != nil || dependents else { return }
        let rows = SQLiteRows(store: self)
        try runWithoutSuspending {
            try await EndingSequences.jobEnded(id, group: group, cacheInUse: cache, dependenciesWaiting: dependents, in: rows, now: now)
        }
    }

    /// Whether a cache entry names job `?1`: a probe of idx_cache_entries_job.
    static let hasCacheEntryStatement = "SELECT EXISTS (SELECT 1 FROM cache_entries WHERE job_id = ?1)"
}
