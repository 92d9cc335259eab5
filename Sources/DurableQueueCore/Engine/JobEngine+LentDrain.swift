import Foundation
import Synchronization

extension JobEngine {
    /// A drain while ``JobQueue/run()`` runs: an app's engine, paused in the background, is lent
    /// the background time. A paused engine resumes, runs what is due until nothing is, the deadline
    /// passes or the caller's task is cancelled, and pauses again (giving running attempts back
    /// within the grace period); an engine that was not paused goes on running afterwards.
    ///
    /// The report counts the attempts that ended and were given back meanwhile.
    func drainThroughService(_ plan: DrainPlan) async throws -> DrainReport {
        // A task of its own, as a drain's: the caller's cancellation (a background task's expiry)
        // ends the wait, and must not cancel the pause that gives running attempts back.
        let cancelled = CancelFlag()
        let work = Task { try await self.lendTime(plan, cancelled: cancelled) }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            cancelled.set()
            self.dispatcherIdle.signal()
        }
    }

    private func lendTime(_ plan: DrainPlan, cancelled: CancelFlag) async throws -> DrainReport {
        let wasPaused = state.isPaused
        let before = state.tally
        if wasPaused {
            await store.setPaused(false)
            resume()
        }
        let transitions = state.pauseTransitions
        let idleBefore = state.idleClaims
        var ending = DrainReport.Ending.nothingDue
        while true {
            let seen = (dispatcherIdle.generation, loopParked.generation)
            if cancelled.isSet {
                ending = .cancelled
                break
            }
            if let deadline = plan.deadline, now >= deadline {
                ending = .deadline
                break
            }
            // Someone paused meanwhile (the app), or the engine stops: the drain is over.
            if state.pauseTransitions != transitions {
                ending = .paused
                break
            }
            if state.isShuttingDown || (state.idleClaims > idleBefore && state.runningCount == 0) { break }
            await waitForEither(dispatcherIdle, after: seen.0, or: loopParked, after: seen.1, until: plan.deadline ?? Int64.max / 2)
        }
        if wasPaused && state.pauseTransitions == transitions {
            await pause(gracePeriod: plan.gracePeriod)
            await store.setPaused(true)
        }
        if let failure = state.failure { throw failure }
        let after = state.tally
        return try await report(ending, tally: (after.ended - before.ended, after.givenBack - before.givenBack))
    }
}

/// Whether the caller of a drain cancelled it.
private final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}
