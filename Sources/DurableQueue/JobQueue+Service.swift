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
        defer {
            recorder.refiller = nil
            engine.reset()
        }
        try await startUp()
        recorder.refiller = self
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await self.maintain() }
                try await self.dispatch(into: &group)
                // Also when the task was cancelled: no more claims along with endings either.
                self.engine.beginShutdown()
                await self.drain(into: &group)
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

    /// Claims and starts jobs until shutdown begins; also starts those claimed along with recorded
    /// endings (see ``AttemptRecorder``).
    private func dispatch(into group: inout ThrowingDiscardingTaskGroup<any Error>) async throws {
        var lastDataVersion: Int64?
        var shouldClaim = true
        // The time of the latest claim: a throttle or schedule that came due after it needs another.
        var lastClaimAt = Int64.min
        while !engine.isShuttingDown && !Task.isCancelled {
            let seen = dispatcherWake.generation
            startAdmitted(in: &group)
            if shouldClaim {
                let claimAt = now
                let claimed = try await retryingTransientErrors("claim jobs") { try await self.claimAvailable(now: claimAt) } ?? 0
                lastClaimAt = claimAt
                startAdmitted(in: &group)
                if claimed > 0 && engine.runningCount < configuration.maxConcurrentJobs { continue }
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

    /// Claims as many due jobs as this process has room for (see ``claimDue(in:freeing:now:)``) in
    /// one transaction, and admits them to the engine while still holding the store.
    ///
    /// - Returns: How many jobs were claimed.
    private func claimAvailable(now: Int64) async throws -> Int {
        // A full engine claims nothing; skip the transaction.
        guard engine.runningCount < configuration.maxConcurrentJobs else { return 0 }
        return try await store.perform { store in
            let claimed = try store.write("claim jobs") { try self.claimDue(in: store, freeing: 0, now: now) }
            self.engine.admit(claimed)
            return claimed.count
        }
    }

    /// Starts a task for every admitted attempt.
    private func startAdmitted(in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        let admitted = engine.takeAdmitted()
        guard !admitted.isEmpty else { return }
        let now = now
        for (job, stop) in admitted {
            metrics.started(job, waitedMilliseconds: now - job.runAt)
            group.addTask {
                await self.process(job, stop: stop)
                self.engine.remove(job.id)
                self.dispatcherWake.signal()
            }
        }
        jobChanges.signal()
    }

    /// After shutdown began: waits for running attempts up to the grace period, then stops the rest.
    /// Attempts claimed along with endings just before shutdown began start too, and end the same way.
    private func drain(into group: inout ThrowingDiscardingTaskGroup<any Error>) async {
        let deadline = now + configuration.gracefulShutdownTimeout.milliseconds
        var stopped = false
        while engine.runningCount > 0 {
            let seen = dispatcherWake.generation
            startAdmitted(in: &group)
            if engine.runningCount == 0 { break }
            if now >= deadline || Task.isCancelled {
                if !stopped { logger.debug("stopping \(engine.runningCount) running job(s) at shutdown") }
                engine.stopAll(.shutdown)  // again each round, for attempts admitted since
                stopped = true
            }
            if Task.isCancelled {
                // A recorder transaction that claimed before shutdown began admits its jobs while
                // holding the store: once the store is free, every such job is admitted. Started in
                // the cancelled group, they are given back at once. The group waits for the attempts.
                _ = try? await store.perform { _ in }
                startAdmitted(in: &group)
                return
            }
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
