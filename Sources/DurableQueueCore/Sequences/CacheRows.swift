/// The row operations that ``CacheSequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol CacheRows: Sendable {
    /// The entry of `key` in `namespace`, held until the transaction ends: callers of one key take
    /// turns on it (a store with row locks creates a placeholder row `inProgress` for `kind` first
    /// when there is none, and locks it; one whose transaction holds its lock from the start reads).
    /// Nil when the key was never requested or was reset.
    func lockedCacheEntry(namespace: String, key: String, kind: String, maxFailures: Int?, now: Int64) async throws
        -> CacheEntryRecord?
    /// Job `id`'s state, read without locking its row; nil if there is no such job.
    func currentState(of id: JobID) async throws -> JobState?
    /// Makes job `id` the one computing `key` in `namespace` (`inProgress`, for `kind`, allowing
    /// `maxFailures`), creating the entry or taking it over.
    func assignCacheEntry(namespace: String, key: String, kind: String, to id: JobID, maxFailures: Int?, now: Int64) async throws
    /// Deletes the entry of `key` (nil: of every key) in `namespace` (nil: in every namespace);
    /// how many were deleted.
    func deleteCacheEntries(namespace: String?, key: String?) async throws -> Int
}
