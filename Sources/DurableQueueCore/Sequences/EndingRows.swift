/// A job's state with its output and error, as a row reads them: what an ended job's cache entry
/// is told, what a dependent's enqueue reads of a job it depends on.
package struct OutcomeRow: Sendable {
    package var state: JobState
    package var output: String?
    package var error: String?

    package init(state: JobState, output: String?, error: String?) {
        self.state = state
        self.output = output
        self.error = error
    }
}

/// The row operations that ``EndingSequences`` runs on, beside the groups' (an ended job's group
/// goes on): the results cache and the dependency edges. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol EndingRows: GroupRows {
    /// Ended job `id`'s outcome, if a cache entry records it; nil (one index probe) for the
    /// jobs that compute no cache key, most of them.
    func cachedEnding(of id: JobID) async throws -> OutcomeRow?
    /// Writes the outcome of job `id` into its cache entry, counting a failure if `countsFailure`.
    func recordCacheOutcome(
        ofJob id: JobID, state: CacheEntryRecord.State, output: String?, error: String?, countsFailure: Bool, now: Int64
    ) async throws

    /// Records ended job `id`'s state, output and error on every dependency edge that waits for
    /// it; the jobs those edges belong to, in id order.
    func resolveEdges(ofParent id: JobID, now: Int64) async throws -> [JobID]
    /// Job `id`'s state and run time, its row locked where the store locks rows.
    func dependentRow(_ id: JobID) async throws -> (state: JobState, runAt: Int64)?
    /// Job `id`'s dependencies, by name, with the outcomes of those whose job ended.
    func dependencyRecords(of id: JobID) async throws -> [DependencyRecord]
    /// Moves blocked job `id` to `state` (its dependencies let it start), with its history row.
    func startDependent(_ id: JobID, as state: JobState, now: Int64, reason: String) async throws
}
