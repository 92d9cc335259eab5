import Foundation

/// What a drain is asked to do (see ``JobQueue/drain(until:gracePeriod:)``).
struct DrainPlan: Sendable {
    /// When to stop claiming and stop running attempts, in ms since 1970; nil for none.
    var deadline: Int64?
    /// How long stopped handlers may take to return before they are abandoned (ms).
    var gracePeriod: Int64
    /// How many attempts the drain may claim.
    var limit: Int = .max
    /// How many attempts run at once; nil for ``JobQueue/Configuration/maxConcurrentJobs``.
    var concurrency: Int?
}

extension JobEngine {
    /// Runs due jobs with the engine's concurrency, heartbeats and fencing until none is due, the
    /// deadline passes, the limit is reached or the calling task is cancelled; see
    /// ``JobQueue/drain(until:gracePeriod:)``.
    func drain(_ plan: DrainPlan) async throws -> DrainReport {
        // While run() runs (an app's engine, paused in the background), a drain with the engine's
        // own settings lends it the background time.
        if plan.limit == .max && plan.concurrency == nil && state.isServiceRunning {
            return try await drainThroughService(plan)
        }
        guard state.start(concurrency: plan.concurrency ?? configuration.maxConcurrentJobs, claims: plan.limit, isDrain: true) else {
            throw DurableQueueError(.invalidArgument, "the engine already runs on this JobQueue", path: store.location)
        }
        // A task of its own, not a child: the caller's cancellation (a background task's expiry)
        // must not cancel the writes that give the interrupted jobs back. It ends the drain instead.
        // Asked for after a pause (a background task's), a drain holds the file open while it runs.
        if state.isPaused { await store.setPaused(false) }
        let work = Task(executorPreference: store.preferredTaskExecutor) { try await self.runDrain(plan) }
        let result = await withTaskCancellationHandler {
            await work.result
        } onCancel: {
            self.state.cancelRun()
            self.wake.signal()
        }
        if state.isPaused { await store.setPaused(true) }
        return try result.get()
    }

    private func runDrain(_ plan: DrainPlan) async throws -> DrainReport {
        defer {
            state.reset()
            wake.signal()  // a pause waits for the drain's end
        }
        lookUpTracer()
        // After a crash or a kill, the jobs this host's dead processes held are due again at once.
        await recoverExpiredLeases(includingDeadLocalWorkers: configuration.recoverDeadLocalWorkers)
        // After a relaunch, hand-offs whose transfer was lost with the process are due again at once.
        await reconcileCarriersAtStart()
        // A schedule's tick that is due enqueues its job first: it is due too.
        _ = try await fireDueSchedules(now: now)
        let ending = try await withThrowingDiscardingTaskGroup(returning: DrainReport.Ending.self) { group in
            group.addTask { await self.renewLeasesUntilFinished() }
            let ending = await self.runDueAttempts(into: &group, until: plan.deadline)
            self.state.beginShutdown()
            // Nothing runs after a drain that found nothing due; after a deadline or a cancel, what
            // runs is stopped now and abandoned after the grace period.
            let stopAt = now
            await self.finishRunning(into: &group, stopAt: stopAt, abandonAt: stopAt + plan.gracePeriod)
            self.state.finish()
            self.maintenanceWake.signal()
            return ending
        }
        if let failure = state.failure { throw failure }
        return try await report(ending, tally: state.tally)
    }

    /// Claims and starts due jobs until none is due and none runs, the deadline passes, the limit
    /// is reached, or the run is cancelled.
    private func runDueAttempts(into group: inout ThrowingDiscardingTaskGroup<any Error>, until deadline: Int64?) async -> DrainReport.Ending {
        while true {
            if state.wasCancelled { return state.wasEndedByPause ? .paused : .cancelled }
            if let deadline, now >= deadline { return .deadline }
            // A storage failure stopped the engine: the drain throws it.
            if state.isShuttingDown { return .nothingDue }
            let seen = wake.generation
            startAdmitted(in: &group)
            let claimed = await retryingTransientErrors("claim jobs", isWrite: true) { try await self.claimAvailable(now: self.now) }
            startAdmitted(in: &group)
            if let claimed, claimed > 0 { continue }
            if claimed != nil {
                // A claim made along with an ending may still be admitting jobs.
                await state.claimsSettled()
                startAdmitted(in: &group)
                if state.runningCount == 0 { return state.claimsExhausted ? .limitReached : .nothingDue }
            }
            // Running attempts wake this loop as they end; a failed claim is tried again after a pause.
            let pause = claimed == nil ? now + configuration.pollInterval.milliseconds : Int64.max / 2
            await wake.wait(after: seen, until: Date(millisecondsSince1970: min(pause, deadline ?? pause)), time: configuration.timeSource)
        }
    }

    /// Renews the leases of running attempts every heartbeat interval until the run has finished.
    private func renewLeasesUntilFinished() async {
        while !state.isFinished {
            let seen = maintenanceWake.generation
            let next = now + configuration.heartbeatInterval.milliseconds
            await maintenanceWake.wait(after: seen, until: Date(millisecondsSince1970: next), time: configuration.timeSource)
            if state.isFinished { return }
            if now >= next { await heartbeat() }
        }
    }

    /// Pending jobs this process would run but for the network: of a kind whose requirement the
    /// conditions do not meet, or in a queue whose requirement they do not meet (each job once).
    private func jobsWaitingForNetwork() async throws -> Int {
        let kinds = registry.runnable
        let claimable = claimableKinds.names
        let gatedKinds = kinds.filter { !claimable.contains($0) }
        let gatedQueues = self.gatedQueues.filter { configuration.queues?.contains($0) ?? true }
        var count = 0
        if !gatedKinds.isEmpty {
            count += try await store.count(JobFilter.pending(in: configuration.queues, runnableBy: gatedKinds))
        }
        if !gatedQueues.isEmpty {
            count += try await store.count(JobFilter.pending(in: gatedQueues, runnableBy: kinds))
            if !gatedKinds.isEmpty {
                count -= try await store.count(JobFilter.pending(in: gatedQueues, runnableBy: gatedKinds))
            }
        }
        return count
    }

    /// What the drain did and what is left.
    func report(_ ending: DrainReport.Ending, tally: (ended: Int, givenBack: Int)) async throws -> DrainReport {
        let now = now
        let due = try await store.count(JobFilter.pending(in: configuration.queues, runnableBy: registry.runnable))
        // Due, but their network requirement is not met: due again as soon as the network is.
        let waitingForNetwork = try await jobsWaitingForNetwork()
        var next: Int64?
        if (due > 0 && ending != .nothingDue) || waitingForNetwork > 0 {
            next = now
        } else {
            let times = [
                try await store.nextWakeTime(after: now), try await store.nextScheduleTick(), try await store.nextDeadline(),
            ].compactMap { $0 }
            next = times.min().map { max($0, now) }
        }
        let network = registry.networkKinds
        var needsNetwork = false
        if !network.isEmpty {
            needsNetwork = try await store.count(JobFilter(states: [.pending, .scheduled], queues: configuration.queues, kinds: network)) > 0
        }
        return DrainReport(
            ending: ending, attemptsRun: tally.ended, jobsGivenBack: tally.givenBack, jobsStillDue: due,
            nextDueAt: next.map { Date(millisecondsSince1970: $0) }, waitingWorkNeedsNetwork: needsNetwork,
            jobsWaitingForNetwork: waitingForNetwork)
    }
}
