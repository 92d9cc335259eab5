import Foundation
import Logging

extension JobEngine {
    /// Claims and starts jobs until shutdown begins; also starts those claimed along with recorded
    /// endings (see ``AttemptRecorder``).
    func dispatch(into group: inout ThrowingDiscardingTaskGroup<any Error>) async {
        state.loopRuns(true)
        defer { state.loopRuns(false) }
        var lastChangeToken: Int64?
        var shouldClaim = true
        // The time of the latest claim: a throttle or schedule that came due after it needs another.
        var lastClaimAt = Int64.min
        var lastScheduleHint = Int64.min / 2
        while !state.isShuttingDown && !Task.isCancelled {
            let seen = wake.generation
            startAdmitted(in: &group)
            if state.isPaused && !state.isShuttingDown {
                // Nothing to claim or look for until the process resumes (or shuts down); attempts
                // admitted meanwhile start, and give their jobs back at once.
                if state.runningCount == 0 {
                    await parkWhilePaused(waitingOn: wake, after: seen)
                } else {
                    await wake.wait(after: seen)
                }
                shouldClaim = true
                continue
            }
            var claimFailed = false
            if shouldClaim {
                let claimAt = now
                let claimed = await retryingTransientErrors("claim jobs", isWrite: true) { try await self.claimAvailable(now: claimAt) }
                claimFailed = claimed == nil
                lastClaimAt = claimAt
                startAdmitted(in: &group)
                if claimed == 0 && state.runningCount == 0 {
                    state.noteIdleClaim()
                    dispatcherIdle.signal()
                }
                if let claimed, claimed > 0 && state.runningCount < configuration.maxConcurrentJobs { continue }
            }
            let now = now
            var wakeAt = now + queue.idlePollExpectingChanges().milliseconds
            // A full engine starts nothing before an attempt ends, which wakes it: no need to ask
            // the store when the next job may start (a round trip per ending on a busy server).
            var nextStart: Int64?
            if state.hasRoom(maximum: configuration.maxConcurrentJobs) {
                nextStart = await retryingTransientErrors("find when the next job may start") {
                    try await self.store.nextWakeTime(after: lastClaimAt)
                } ?? nil
            }
            if let nextStart { wakeAt = min(wakeAt, max(nextStart, now)) }
            logger.trace("idle until woken or the next poll", metadata: ["engine.idle_ms": "\(wakeAt - now)"])
            if await wake.wait(after: seen, until: Date(millisecondsSince1970: wakeAt), time: configuration.timeSource) {
                shouldClaim = true
                continue
            }
            // Woken by time: claim when a scheduled job is due, a throttle has passed, another
            // process changed the store, or a signal came just after the wait ended.
            let token = await retryingTransientErrors("look for changes by other processes") { try await self.store.changeToken() }
            let changed = token != nil && token != lastChangeToken
            lastChangeToken = token ?? lastChangeToken
            if changed {
                await stopJobsCancelledElsewhere()
                // Perhaps a schedule changed: the schedule loop reads them again, at most once a
                // second (a store that cannot notify changes its token at every poll).
                if now - lastScheduleHint >= Self.scheduleHintInterval {
                    lastScheduleHint = now
                    scheduleWake.signal()
                }
            }
            // A claim that failed (a full disk, say) changed nothing in the store: try it again.
            shouldClaim = changed || claimFailed || (nextStart.map { $0 <= self.now } ?? false) || wake.generation != seen
        }
    }

    /// How often, at most, a change another process made sends the schedule loop to read the
    /// schedules again (ms): a schedule saved elsewhere is seen within a second.
    static let scheduleHintInterval: Int64 = 1_000

    /// Claims as many due jobs as this process has room for, in one transaction, and admits them.
    ///
    /// - Returns: How many jobs were claimed.
    func claimAvailable(now: Int64) async throws -> Int {
        let room = state.reserveRoom(maximum: configuration.maxConcurrentJobs)
        // A full engine claims nothing; skip the transaction.
        guard room > 0 else { return 0 }
        let request = claimRequest(room: room, now: now)
        do {
            let claimed = try await store.claim(request)
            state.admit(claimed, reserved: room)
            return claimed.count
        } catch {
            state.release(reserved: room)
            throw error
        }
    }

    /// Starts a task for every admitted attempt.
    func startAdmitted(in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        let admitted = state.takeAdmitted()
        guard !admitted.isEmpty else { return }
        let now = now
        for (job, stop) in admitted {
            metrics.started(job, waitedMilliseconds: now - job.runAt)
            group.addTask {
                var next: (job: ClaimedJob, stop: StopSignal)? = (job, stop)
                while let (job, stop) = next {
                    await self.process(job, stop: stop)
                    self.state.remove(job.attemptID, stop: stop)
                    // An attempt claimed meanwhile (most often along with this one's ending) runs
                    // next in this task: no new task, and no wait for the dispatcher to wake.
                    next = self.state.isShuttingDown ? nil : self.state.takeOneAdmitted()
                    if let next {
                        self.metrics.started(next.job, waitedMilliseconds: self.now - next.job.runAt)
                        self.jobChanges.signal()
                    }
                }
                self.wake.signal()
            }
        }
        jobChanges.signal()
    }

    /// After shutdown began: waits for running attempts until `stopAt` (ms since 1970), then stops
    /// the rest, which give their jobs back; with `abandonAt`, a handler that has not stopped by
    /// then is abandoned (``StopSignal/abandon()``) and its job given back all the same. Attempts
    /// claimed along with endings just before shutdown began start too, and end the same way.
    func finishRunning(into group: inout ThrowingDiscardingTaskGroup<any Error>, stopAt: Int64, abandonAt: Int64? = nil) async {
        var stopped = false
        while true {
            // A claim made along with recorded endings before shutdown began may still be under
            // way: once it is admitted, its jobs start (and end) like the others.
            await state.claimsSettled()
            let seen = wake.generation
            startAdmitted(in: &group)
            if state.runningCount == 0 { return }
            if now >= stopAt || Task.isCancelled || state.failure != nil {
                if !stopped { logger.debug("stopping \(state.runningCount) running job(s) at shutdown") }
                state.stopAll(.shutdown)  // again each round, for attempts admitted since
                stopped = true
            }
            var abandoned = false
            if let abandonAt, now >= abandonAt {
                state.abandonAll()
                abandoned = true
            }
            // Started in a cancelled group, attempts give their jobs back at once; the group waits for them.
            if Task.isCancelled { return }
            // Once stopped (or abandoned), each attempt's end wakes this loop.
            let until = !stopped ? stopAt : abandoned ? Int64.max / 2 : (abandonAt ?? Int64.max / 2)
            await wake.wait(after: seen, until: Date(millisecondsSince1970: until), time: configuration.timeSource)
        }
    }
}
