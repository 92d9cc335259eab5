import Foundation
import Logging
import ServiceLifecycle

extension JobQueue: Service {
    /// Runs jobs until graceful shutdown (or cancellation of the calling task).
    ///
    /// On start it recovers jobs whose worker died (expired leases, and with
    /// ``Configuration/recoverDeadLocalWorkers`` those of this host's processes that are gone). It then claims due jobs of
    /// every queue (or ``Configuration/queues``) within their limits, runs each as a child task,
    /// records every outcome before reporting it, renews leases by heartbeat, and prunes finished
    /// jobs per ``Retention``. It wakes at once for work enqueued here and within
    /// ``Configuration/pollInterval`` for work enqueued by other processes.
    ///
    /// On graceful shutdown (swift-service-lifecycle) it stops claiming, lets running jobs finish
    /// for up to ``Configuration/gracefulShutdownTimeout``, then stops the rest and gives them back
    /// to `pending` (recorded, without counting the attempt). Returning means it has stopped.
    ///
    /// - Throws: `invalidArgument` if this queue is already running; a storage error that retrying
    ///   cannot fix (`notADatabase`, `corrupt`, `readOnly`, `schemaTooNew`).
    public func run() async throws {
        guard engine.start() else {
            throw DurableQueueError(.invalidArgument, "run() is already running on this JobQueue", path: path)
        }
        defer { engine.reset() }
        try await startUp()
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await self.maintain() }
                try await self.dispatch(into: &group)
                await self.drain()
                self.engine.finish()
                self.maintenanceWake.signal()
            }
        } onGracefulShutdown: {
            self.engine.beginShutdown()
            self.dispatcherWake.signal()
        }
        logger.debug("job queue stopped", metadata: ["worker.id": "\(configuration.workerID)"])
    }

    private func startUp() async throws {
        logger.debug("job queue starting", metadata: ["worker.id": "\(configuration.workerID)", "file": "\(path)"])
        await recoverExpiredLeases(includingDeadLocalWorkers: configuration.recoverDeadLocalWorkers)
        let unknown = try await store.waitingJobs(ofKindsOtherThan: registry.kinds)
        for (kind, count) in unknown.sorted(by: { $0.key < $1.key }) {
            logger.info(
                "\(count) job(s) of kind '\(kind)' wait for a process that registers that job type",
                metadata: ["job.kind": "\(kind)"])
        }
    }

    /// Claims and starts jobs until shutdown begins.
    private func dispatch(into group: inout ThrowingDiscardingTaskGroup<any Error>) async throws {
        var lastDataVersion: Int64?
        var shouldClaim = true
        var firstQueue = 0
        // The time of the latest claim: a throttle or schedule that came due after it needs another.
        var lastClaimAt = Int64.min
        while !engine.isShuttingDown && !Task.isCancelled {
            let seen = dispatcherWake.generation
            if shouldClaim {
                let claimAt = now
                let claimed = try await retryingTransientErrors("claim jobs") {
                    try await self.claimAvailable(startingAt: &firstQueue, now: claimAt)
                } ?? []
                lastClaimAt = claimAt
                for job in claimed { start(job, in: &group) }
                if !claimed.isEmpty && engine.runningCount < configuration.maxConcurrentJobs { continue }
            }
            let now = now
            var wake = now + configuration.pollInterval.milliseconds
            let nextStart = try await retryingTransientErrors("find when the next job may start") {
                try await self.store.perform { [lastClaimAt] in try $0.nextWakeTime(after: lastClaimAt) }
            } ?? nil
            if let nextStart { wake = min(wake, max(nextStart, now)) }
            if await dispatcherWake.wait(after: seen, until: Date(millisecondsSince1970: wake), time: configuration.timeSource) {
                shouldClaim = true
                continue
            }
            // Woken by time: claim when a scheduled job is due, a throttle has passed, another
            // process changed the file, or a signal came just after the wait ended.
            let version = try await retryingTransientErrors("read the data version") { try await self.store.dataVersion() }
            let changed = version != nil && version != lastDataVersion
            lastDataVersion = version ?? lastDataVersion
            if changed { await stopJobsCancelledElsewhere() }
            shouldClaim = changed || (nextStart.map { $0 <= self.now } ?? false) || dispatcherWake.generation != seen
        }
    }

    /// Claims as many due jobs as this process has room for, queue by queue, rotating the first
    /// queue so that a busy queue cannot starve the others.
    private func claimAvailable(startingAt first: inout Int, now: Int64) async throws -> [ClaimedJob] {
        let kinds = registry.kinds
        let names = try await store.perform { try $0.queueNames() }.filter { configuration.queues?.contains($0) ?? true }
        guard !kinds.isEmpty, !names.isEmpty else {
            // Nothing to claim here, but due jobs still become pending (for other processes, and so
            // that the next wake-up time moves on).
            try await store.promoteDueJobs(now: now)
            return []
        }
        first = (first + 1) % names.count
        var claimed: [ClaimedJob] = []
        for offset in 0..<names.count {
            let room = configuration.maxConcurrentJobs - engine.runningCount - claimed.count
            guard room > 0 else { break }
            let (queue, owner, lease) = (names[(first + offset) % names.count], configuration.workerID, configuration.leaseDuration.milliseconds)
            claimed += try await store.perform {
                try $0.claim(queue: queue, limit: room, owner: owner, leaseDuration: lease, now: now, kinds: kinds)
            }
        }
        return claimed
    }

    private func start(_ job: ClaimedJob, in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        let stop = StopSignal()
        engine.add(job.id, stop)
        metrics.started(job, waitedMilliseconds: now - job.runAt)
        jobChanges.signal()
        group.addTask {
            await self.process(job, stop: stop)
            self.engine.remove(job.id)
            self.dispatcherWake.signal()
        }
    }

    /// After shutdown began: waits for running attempts up to the grace period, then stops the rest.
    private func drain() async {
        let deadline = now + configuration.gracefulShutdownTimeout.milliseconds
        var stopped = false
        while engine.runningCount > 0 {
            let seen = dispatcherWake.generation
            if engine.runningCount == 0 { break }
            if !stopped && (now >= deadline || Task.isCancelled) {
                logger.debug("stopping \(engine.runningCount) running job(s) at shutdown")
                engine.stopAll(.shutdown)
                stopped = true
            }
            if Task.isCancelled { return }  // the task group waits for the attempts themselves
            let until = stopped ? Int64.max / 2 : deadline
            await dispatcherWake.wait(after: seen, until: Date(millisecondsSince1970: until), time: configuration.timeSource)
        }
    }

    /// Runs `operation`; a transient storage error (lock timeout, I/O) is logged and gives nil, so the
    /// engine tries again later. Errors retrying cannot fix are thrown.
    func retryingTransientErrors<T>(_ what: String, _ operation: () async throws -> T) async throws -> T? {
        do {
            return try await operation()
        } catch let error as DurableQueueError where [.databaseLocked, .storage].contains(error.code) {
            logger.debug("could not \(what); will try again: \(error)")
            try? await configuration.timeSource.sleep(until: Date(millisecondsSince1970: now + configuration.pollInterval.milliseconds))
            return nil
        }
    }
}
