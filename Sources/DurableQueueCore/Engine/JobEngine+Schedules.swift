import Foundation
import Logging

extension JobEngine {
    /// Enqueues the jobs of due schedules until shutdown begins, sleeping until the next tick in
    /// between. Woken early by ``scheduleWake``: a schedule saved here, or a change another process
    /// committed (the dispatcher notices those; there is no polling of its own).
    func fireSchedules() async {
        state.loopRuns(true)
        defer { state.loopRuns(false) }
        while !state.isShuttingDown && !Task.isCancelled {
            let seen = scheduleWake.generation
            if state.isPaused {
                // Ticks that came due meanwhile fire on resume, as their missed-tick policy says.
                await parkWhilePaused(waitingOn: scheduleWake, after: seen)
                continue
            }
            let firedAt = now
            let next = await retryingTransientErrors("enqueue the jobs of due schedules", isWrite: true) {
                try await self.fireDueSchedules(now: firedAt)
            }
            // No tick: sleep until woken. A failed attempt, or a tick still due that this process
            // could not fire (a rule it cannot read), tries again after a poll interval, not at once.
            let retryAt = firedAt + configuration.pollInterval.milliseconds
            let wakeAt: Int64 =
                switch next {
                case .none: retryAt
                case .some(.none): Int64.max / 2
                case .some(.some(let tick)): tick <= firedAt ? retryAt : tick
                }
            guard !state.isShuttingDown else { return }
            await scheduleWake.wait(after: seen, until: Date(millisecondsSince1970: wakeAt), time: configuration.timeSource)
        }
    }

    /// Enqueues one job per tick of every schedule due at `now` (as its missed-tick policy says)
    /// and moves its next tick on; returns when the earliest next tick is due.
    func fireDueSchedules(now: Int64) async throws -> Int64? {
        for schedule in try await store.dueSchedules(now: now) {
            guard let due = schedule.nextTickAt else { continue }
            let ticks: ScheduleRule.Ticks
            do {
                ticks = try ScheduleRule.Ticks(schedule.rule)
            } catch {
                // Saved by a process that knew the rule (a time zone this machine lacks): leave it to that one.
                logger.warning("schedule '\(schedule.name)' cannot tick here: \(error)")
                continue
            }
            let plan = schedule.rule.plan(due: due, now: now, ticks: ticks)
            let jitter = schedule.rule.jitter.milliseconds
            let jobs = plan.fire.map { tick in
                var job = schedule.job
                job.runAt = tick + (jitter > 0 ? Int64.random(in: 0...jitter) : 0)
                return (tick: tick, job: job)
            }
            guard let outcomes = try await store.fireSchedule(named: schedule.name, due: due, nextTickAt: plan.next, jobs: jobs, now: now)
            else { continue }  // another process fired it first
            if !outcomes.isEmpty {
                jobChanges.signal()
                wake.signal()
            }
            let skipped = plan.fire.isEmpty ? "no job (missed ticks skipped)" : "\(outcomes.count) job(s)"
            logger.debug("schedule '\(schedule.name)' ticked: \(skipped)", metadata: ["schedule": "\(schedule.name)"])
        }
        return try await store.nextScheduleTick()
    }
}
