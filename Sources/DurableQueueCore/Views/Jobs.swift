extension JobQueue {
    /// The jobs of the store, one by id or many by selection: cancel, retry, delete, signal (see ``Jobs``).
    public var jobs: Jobs { Jobs(jobQueue: self) }

    /// The jobs of the store, whichever process enqueued them: cancel, retry or delete one by id or
    /// many by a ``JobSelection``, retry the failed part of a graph or group, send signals, and prune.
    ///
    /// For example:
    /// ```swift
    /// try await queue.jobs.cancel(JobSelection(tag: "thumbnails"))
    /// try await queue.jobs.retry(JobSelection(states: [.failed], queues: ["github"]))
    /// try await queue.jobs.signal(id, "approved")
    /// ```
    public struct Jobs: Sendable {
        let jobQueue: JobQueue
    }
}

extension JobQueue.Jobs {
    /// Cancels job `id`: durably, at once if it waits, by stopping its task if it runs here, and
    /// through its heartbeat if it runs in another process. A cancelled job never runs again.
    ///
    /// Cancelling a finished job changes nothing.
    /// - Throws: `jobNotFound` when no job has that id.
    public func cancel(_ id: JobID) async throws {
        let outcome = try await jobQueue.store.cancel(id, now: jobQueue.now)
        if outcome == .requested { jobQueue.engine.stopCancelledJob(id) }
        jobQueue.jobChanges.signal()
        // A handed-off job is cancelled at once: its carrier stops the transfer.
        if outcome == .cancelled, !jobQueue.carriers.isEmpty { await jobQueue.engine.stopOrphanedTransfers() }
    }

    /// Cancels group `id` durably: every unfinished job and nested group in it is cancelled, running
    /// jobs included (stopped here, or through their heartbeat in another process).
    ///
    /// Cancelling a finished group changes nothing.
    /// - Throws: `groupNotFound`.
    public func cancel(group id: GroupID) async throws {
        guard try await jobQueue.store.cancel(group: id, now: jobQueue.now) else { return }
        await jobQueue.engine.stopJobsCancelledElsewhere()
        jobQueue.jobChanges.signal()
        jobQueue.workArrived()
    }
}
