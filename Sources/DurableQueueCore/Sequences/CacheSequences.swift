/// The results cache's lookups, written once for every store over its ``StoreRows``; the answers
/// are ``CacheRule``'s.
package enum CacheSequences {
    /// The value of `key` in `namespace`: the stored output, the job computing it, or, in the same
    /// transaction, a new job `job` enqueued to compute it. One job per key, whatever the number of
    /// callers and processes: they take turns on the key's entry.
    package static func cachedValue(
        namespace: String, key: String, job: NewJob, maxFailures: Int?, in rows: some StoreRows, now: Int64
    ) async throws -> CacheLookup {
        let entry = try await rows.lockedCacheEntry(namespace: namespace, key: key, kind: job.kind, maxFailures: maxFailures, now: now)
        var computing = false
        if let running = CacheRule.jobToCheck(in: entry), let state = try await rows.currentState(of: running) {
            computing = !state.isTerminal
        }
        if let answer = CacheRule.answer(for: entry, computing: computing, maxFailures: maxFailures) { return answer }
        let id = try await rows.enqueueJob(job, now: now).id
        try await rows.assignCacheEntry(namespace: namespace, key: key, kind: job.kind, to: id, maxFailures: maxFailures, now: now)
        return .computing(id, enqueued: true)
    }
}
