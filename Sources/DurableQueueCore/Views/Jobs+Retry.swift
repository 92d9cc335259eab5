extension JobQueue.Jobs {
    /// Puts a failed, cancelled or parked job back to `pending`, with a fresh set of attempts; its
    /// checkpoint is kept, so a job that saves one (a download) resumes where it stopped. Recorded in
    /// its history. A parked job (``JobState/parked``) is retried once code that reads its input runs.
    ///
    /// - Throws: `jobNotFound`; `invalidArgument` when the job is not failed, cancelled or parked,
    ///   belongs to a sequence or group (unless parked), or another unfinished job holds its unique
    ///   key (nothing changes).
    public func retry(_ id: JobID) async throws {
        try await jobQueue.store.retry(id, now: jobQueue.now)
        jobQueue.workArrived()
        jobQueue.jobChanges.signal()
    }

    /// Retries the failed jobs of the dependency graph of job `id` — every job linked to it by
    /// ``Dependency`` edges, either way: each goes back to `pending` with fresh attempts, as
    /// ``retry(_:)-(JobID)`` does. With `downstream` (the default), the jobs a failure cancelled down
    /// the graph wait again (`blocked`) for the jobs retried, and run once they succeed; jobs that ran
    /// anyway, or were cancelled otherwise, are left. One transaction; each change is in the history.
    ///
    /// - Returns: Each job changed, with its new state (`pending` or `blocked`).
    /// - Throws: `jobNotFound`; `invalidArgument` when a failed job belongs to a sequence or group or
    ///   another unfinished job holds its unique key, or the graph has more than 10,000 jobs
    ///   (nothing changes).
    @discardableResult
    public func retryFailed(inGraphOf id: JobID, downstream: Bool = true) async throws -> [JobID: JobState] {
        retried(try await jobQueue.store.retryFailed(inGraphOf: id, downstream: downstream, now: jobQueue.now))
    }

    /// Runs the failed part of a finished sequence or concurrent group again: a sequence from its
    /// first step that failed (with `downstream`, also from one that was cancelled), with every step
    /// after it; a concurrent group's failed children (with `downstream`, also its cancelled ones).
    /// They get fresh attempts, the group runs again under its own rule (a sequence's step takes the
    /// previous step's output again), and each change is in the job's and the group's history; one
    /// transaction.
    ///
    /// - Returns: The children changed, with their states after (`pending` or `blocked`).
    /// - Throws: `groupNotFound`; `invalidArgument` for a group that has not ended failed or
    ///   cancelled, is nested in another (retry the outermost), or holds groups (nothing changes).
    @discardableResult
    public func retryFailed(in group: GroupID, downstream: Bool = true) async throws -> [JobID: JobState] {
        retried(try await jobQueue.store.retryFailed(group: group, downstream: downstream, now: jobQueue.now))
    }

    /// Tells the engine and waiting handles of jobs `changed` put back; returns them.
    private func retried(_ changed: [JobID: JobState]) -> [JobID: JobState] {
        if !changed.isEmpty {
            jobQueue.workArrived()
            jobQueue.jobChanges.signal()
        }
        return changed
    }

    /// Deletes jobs that finished in `state` more than `age` ago, with their history and tags, in
    /// small transactions that never hold the file for long. Jobs of a running group are kept.
    ///
    /// - Parameters:
    ///   - state: `succeeded`, `failed` or `cancelled`.
    ///   - age: How long ago the job must have finished.
    /// - Returns: How many jobs (and finished groups) were deleted.
    /// - Throws: `invalidArgument` for an unfinished state or a negative age; a storage error.
    @discardableResult
    public func prune(state: JobState, olderThan age: Duration) async throws -> Int {
        guard age >= .zero else { throw DurableQueueError.invalidArgument("age", "\(age) is negative") }
        let cutoff = jobQueue.now - age.milliseconds
        var deleted = 0
        while true {
            let batch = try await jobQueue.store.prune(state: state, finishedBefore: cutoff, limit: 500, now: jobQueue.now)
            deleted += batch
            if batch < 500 { return deleted }
        }
    }
}
