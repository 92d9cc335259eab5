/// What follows a job's end in the transaction that ended it, written once for every store over
/// its ``EndingRows``: its cache entry records the outcome, its group goes on, and the jobs that
/// depend on it start, wait on or are cancelled (``CacheRule``, ``GroupAdvance``, ``DependencyRule``).
package enum EndingSequences {
    /// The cascade after job `id` ended: cache → group → dependents. A caller that knows that no
    /// cache entry exists at all (`cacheInUse` false) or that no dependency waits
    /// (`dependenciesWaiting` false) in this transaction skips those reads.
    package static func jobEnded(
        _ id: JobID, group: GroupID?, cacheInUse: Bool = true, dependenciesWaiting: Bool = true, in rows: some StoreRows, now: Int64
    ) async throws {
        if cacheInUse { try await recordCacheOutcome(ofJob: id, in: rows, now: now) }
        if let group { try await GroupSequences.advance(group, in: rows, now: now) }
        if dependenciesWaiting { try await resolveDependents(of: id, in: rows, now: now) }
    }

    /// Records ended job `id`'s outcome in the cache entry waiting for it, if any.
    package static func recordCacheOutcome(ofJob id: JobID, in rows: some StoreRows, now: Int64) async throws {
        guard let ended = try await rows.cachedEnding(of: id) else { return }
        let outcome = try CacheRule.outcome(jobState: ended.state, output: ended.output, error: ended.error)
        try await rows.recordCacheOutcome(
            ofJob: id, state: outcome.state, output: outcome.output, error: outcome.error, countsFailure: outcome.countsFailure, now: now)
    }

    /// Resolves the dependency edges that wait for ended job `id`, then lets each job they belong
    /// to start, wait on, or be cancelled, as ``DependencyRule`` says, in id order.
    package static func resolveDependents(of id: JobID, in rows: some StoreRows, now: Int64) async throws {
        for dependent in try await rows.resolveEdges(ofParent: id, now: now) {
            guard let row = try await rows.dependentRow(dependent) else { continue }
            switch DependencyRule.verdict(state: row.state, edges: try await rows.dependencyRecords(of: dependent)) {
            case .wait:
                continue
            case .start(let reason):
                let state = DependencyRule.startState(runAt: row.runAt, now: now)
                try await rows.startDependent(dependent, as: state, now: now, reason: reason)
            case .cancel(let reason):
                _ = try await CancelSequences.requestCancel(dependent, reason: reason, in: rows, now: now)
            }
        }
    }
}
