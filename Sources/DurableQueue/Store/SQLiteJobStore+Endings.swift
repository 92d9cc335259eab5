extension SQLiteJobStore {
    /// Called in the transaction that moved job `id` to a terminal state, so that what depends on
    /// the job changes with it: its cache entry records the outcome, and its group goes on.
    func jobEnded(_ id: JobID, now: Int64) throws {
        try recordCacheOutcome(ofJob: id, now: now)
        try advanceGroup(ofJob: id, now: now)
    }
}
