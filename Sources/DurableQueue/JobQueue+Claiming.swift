import Synchronization

extension JobQueue: AttemptRefiller {
    /// Claims as many due jobs as this process has room for, inside the caller's write transaction:
    /// queue by queue (those of ``Configuration/queues``), the first one rotating so that a busy
    /// queue cannot starve the others, and only kinds registered here, never a job with an attempt
    /// still running here (one whose lease was lost keeps running until its handler returns).
    /// Nothing once shutdown began.
    ///
    /// - Parameter freed: Attempts counted as running here whose endings the same transaction records.
    func claimDue(in store: isolated SQLiteJobStore, freeing freed: Int, now: Int64) throws -> [ClaimedJob] {
        guard !engine.isShuttingDown else { return [] }
        let kinds = registry.kinds
        let names = try store.queueNamesWithinTransaction().filter { configuration.queues?.contains($0) ?? true }
        guard !kinds.isEmpty, !names.isEmpty else {
            // Nothing to claim here, but due jobs still become pending (for other processes, and so
            // that the next wake-up time moves on).
            try store.promoteDueJobs(now: now, batch: 500)
            return []
        }
        let first = nextFirstQueue.wrappingAdd(1, ordering: .relaxed).oldValue.magnitude % UInt(names.count)
        let runningHere = engine.runningJobs
        var claimed: [ClaimedJob] = []
        for offset in 0..<names.count {
            let room = configuration.maxConcurrentJobs + freed - engine.runningCount - claimed.count
            guard room > 0 else { break }
            claimed += try store.claimWithinTransaction(
                queue: names[(Int(first) + offset) % names.count], limit: room, owner: configuration.workerID,
                leaseDuration: configuration.leaseDuration.milliseconds, now: now, kinds: kinds, excluding: runningHere)
        }
        return claimed
    }

    /// Hands jobs claimed along with recorded endings to the dispatcher, which starts them.
    func admit(_ jobs: [ClaimedJob]) {
        engine.admit(jobs)
        dispatcherWake.signal()
    }
}
