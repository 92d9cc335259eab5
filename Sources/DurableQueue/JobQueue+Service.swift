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
    /// If the file cannot be written for longer than ``Configuration/storageFailureTimeout`` (a full
    /// disk, I/O errors), or at once for an error no retry can fix, it stops every attempt at once and
    /// throws that error; what was committed stays, and the jobs left running are recovered when the
    /// file works again.
    ///
    /// - Throws: `invalidArgument` if this queue is already running; the storage error it stopped
    ///   for (`storage`, `databaseLocked`, `notADatabase`, `corrupt`, `readOnly`, `schemaTooNew`).
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
                await self.dispatch(into: &group)
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
        if let failure = engine.failure { throw failure }
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
    private func dispatch(into group: inout ThrowingDiscardingTaskGroup<any Error>) async {
        var lastDataVersion: Int64?
        var shouldClaim = true
        // The time of the latest claim: a throttle or schedule that came due after it needs another.
        var lastClaimAt = Int64.min
        while !engine.isShuttingDown && !Task.isCancelled {
            let seen = dispatcherWake.generation
            startAdmitted(in: &group)
            var claimFailed = false
            if shouldClaim {
                let claimAt = now
                let claimed = await retryingTransientErrors("claim jobs", isWrite: true) { try await self.claimAvailable(now: claimAt) }
                claimFailed = claimed == nil
                lastClaimAt = claimAt
                startAdmitted(in: &group)
                if let claimed, claimed > 0 && engine.runningCount < configuration.maxConcurrentJobs { continue }
            }
            let now = now
            var wake = now + configuration.pollInterval.milliseconds
            let nextStart = await retryingTransientErrors("find when the next job may start") {
                try await self.store.perform { [lastClaimAt] in try $0.nextWakeTime(after: lastClaimAt) }
            } ?? nil
            if let nextStart { wake = min(wake, max(nextStart, now)) }
            if await dispatcherWake.wait(after: seen, until: Date(millisecondsSince1970: wake), time: configuration.timeSource) {
                shouldClaim = true
                continue
            }
            // Woken by time: claim when a scheduled job is due, a throttle has passed, another
            // process changed the file, or a signal came just after the wait ended.
            let version = await retryingTransientErrors("read the data version") { try await self.store.dataVersion() }
            let changed = version != nil && version != lastDataVersion
            lastDataVersion = version ?? lastDataVersion
            if changed { await stopJobsCancelledElsewhere() }
            // A claim that failed (a full disk, say) changed nothing in the file: try it again.
            shouldClaim = changed || claimFailed || (nextStart.map { $0 <= self.now } ?? false) || dispatcherWake.generation != seen
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
                self.engine.remove(job.attemptID)
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
            if now >= deadline || Task.isCancelled || engine.failure != nil {
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

    /// Runs `operation`; a storage error is handled by ``storageFailed(_:while:)`` and gives nil, after
    /// a pause of one poll interval, so the engine tries again later (unless it has given up).
    ///
    /// - Parameter isWrite: Whether `operation` writes: only a write that succeeds shows that the
    ///   file works again (reads go on working on a full disk).
    func retryingTransientErrors<T>(_ what: String, isWrite: Bool = false, _ operation: () async throws -> T) async -> T? {
        do {
            let value = try await operation()
            if isWrite { storageSucceeded() }
            return value
        } catch {
            guard storageFailed(error, while: what) else { return nil }
            try? await configuration.timeSource.sleep(until: Date(millisecondsSince1970: now + configuration.pollInterval.milliseconds))
            return nil
        }
    }

    /// Notes that a write to the store succeeded: the file works (again).
    func storageSucceeded() { engine.storageSucceeded() }

    /// Handles an error of a store call the engine made while trying to `what` (in words).
    ///
    /// A lock held elsewhere past the busy timeout or a storage failure (disk full, I/O error) is
    /// logged, and the caller may try again, until the engine's store calls have failed for longer
    /// than ``Configuration/storageFailureTimeout``: then the engine stops with that error, as it does
    /// at once for errors no retry can fix (the file is damaged, read-only, or not a queue file). The
    /// file is left as its last commit made it; jobs left running are recovered once it works again.
    ///
    /// - Returns: Whether to try again; false once the engine is stopping for this error or another.
    func storageFailed(_ error: any Error, while what: String) -> Bool {
        let error = SQLiteJobStore.mapped(error, operation: what, path: path, busyTimeout: configuration.storage.busyTimeout)
        guard engine.failure == nil else { return false }
        let now = now
        let failingSince = engine.storageFailed(at: now)
        let retryable = error.code == .databaseLocked || error.code == .storage
        let limit = configuration.storageFailureTimeout.milliseconds
        if retryable && now - failingSince < limit {
            let level: Logger.Level = failingSince == now ? .info : .debug
            logger.log(level: level, "could not \(what); will try again for up to \(configuration.storageFailureTimeout): \(error)")
            return true
        }
        let stopping = retryable
            ? DurableQueueError(
                error.code, "stopped after \((now - failingSince) / 1_000) s of failing writes: \(error.message)",
                path: error.path, underlying: error.underlying)
            : error
        logger.info("the engine stops: \(stopping)")
        engine.fail(stopping)
        dispatcherWake.signal()
        return false
    }
}
