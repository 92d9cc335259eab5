extension JobQueue.Jobs {
    /// Retries, cancels or deletes every job of `selection` that `action` applies to (retry: failed
    /// or cancelled jobs; cancel: unfinished ones; delete: finished ones), oldest first, in
    /// transactions of at most 500 jobs, so that a large selection never holds the database for
    /// long. Each retry and cancel is recorded in the job's history with the selection in words
    /// (``JobSelection/description``); each deleted job leaves a line in `deleted_jobs`.
    ///
    /// Jobs that start to match while the action runs (a job failing meanwhile) may be taken too,
    /// if their id is above those already done. With `dryRun` nothing changes: the result counts
    /// the jobs the action would take now.
    ///
    /// - Returns: How many jobs matched and how many were changed (see ``BulkResult``).
    @discardableResult
    public func apply(_ action: BulkAction, to selection: JobSelection, dryRun: Bool = false) async throws -> BulkResult {
        var filter = selection.filter(for: action, limit: BulkAction.batchSize)
        let matched = try await jobQueue.store.count(filter)
        guard !dryRun, matched > 0 else { return BulkResult(action: action, matched: matched, changed: 0, dryRun: dryRun) }
        let reason = action.reason(selection.description)
        var changed = 0
        while true {
            let ids = try await jobQueue.store.jobs(filter).map(\.id)
            guard let last = ids.last else { break }
            let states = try await jobQueue.store.apply(action, to: ids, reason: reason, now: jobQueue.now)
            changed += states.count
            if action == .cancel {
                for (id, state) in states where state == .running { jobQueue.engine.stopCancelledJob(id) }
                if states.values.contains(.cancelled), !jobQueue.carriers.isEmpty { await jobQueue.engine.stopOrphanedTransfers() }
            }
            if action == .retry, !states.isEmpty { jobQueue.workArrived() }
            jobQueue.jobChanges.signal()
            if ids.count < BulkAction.batchSize { break }
            filter.afterID = last
        }
        return BulkResult(action: action, matched: matched, changed: changed, dryRun: false)
    }

    /// Cancels every unfinished job of `selection` (a running one is asked to stop, here or through
    /// its heartbeat elsewhere), as ``apply(_:to:dryRun:)`` does with ``BulkAction/cancel``.
    ///
    /// - Returns: How many jobs were cancelled or asked to stop.
    @discardableResult
    public func cancel(_ selection: JobSelection) async throws -> Int {
        try await apply(.cancel, to: selection).changed
    }

    /// Puts every failed or cancelled job of `selection` back to `pending` with fresh attempts, as
    /// ``apply(_:to:dryRun:)`` does with ``BulkAction/retry``.
    ///
    /// - Returns: How many jobs were put back.
    @discardableResult
    public func retry(_ selection: JobSelection) async throws -> Int {
        try await apply(.retry, to: selection).changed
    }

    /// Deletes every finished job of `selection` with its history, as ``apply(_:to:dryRun:)`` does
    /// with ``BulkAction/delete``.
    ///
    /// - Returns: How many jobs were deleted.
    @discardableResult
    public func delete(_ selection: JobSelection) async throws -> Int {
        try await apply(.delete, to: selection).changed
    }
}
