import Foundation
import Logging

extension JobEngine {
    /// Pauses this process's work: no more claims, a drain under way ends, and running attempts
    /// are stopped and given back uncounted; handlers that have not returned after `gracePeriod`
    /// (ms) are abandoned. Returns when nothing runs here; see ``JobQueue/pauseInThisProcess(gracePeriod:)``.
    func pause(gracePeriod: Int64) async {
        state.pause()
        // A claim under way still admits its jobs: they are stopped with the others.
        await state.claimsSettled()
        state.stopAll(.paused)
        wake.signal()
        let abandonAt = now + gracePeriod
        var abandoned = false
        while true {
            let seen = (wake.generation, loopParked.generation)
            // Drains started meanwhile end too; attempts admitted since are stopped (and give
            // their jobs back without starting).
            state.pause()
            state.stopAll(.paused)
            if state.runningCount == 0 {
                // Nothing to renew or schedule: maintenance and schedules park now.
                maintenanceWake.signal()
                scheduleWake.signal()
            }
            if state.isQuiet { break }
            if !abandoned && now >= abandonAt {
                state.abandonAll()
                abandoned = true
            }
            // Every attempt's end, a drain's, and each loop that parks wakes this loop.
            let until = abandoned ? Int64.max / 2 : abandonAt
            await waitForEither(wake, after: seen.0, or: loopParked, after: seen.1, until: until)
        }
        if state.isServiceRunning { await recordPresencePaused() }
        logger.debug("paused in this process", metadata: ["worker.id": "\(configuration.workerID)"])
    }

    /// Parks the calling loop of ``run()`` while this process is paused: it waits on `signal` (which
    /// the resume and shutdown signal) with no store call under way, and says so to the pause.
    func parkWhilePaused(waitingOn signal: ChangeSignal, after seen: UInt64) async {
        state.loopParked(true)
        loopParked.signal()
        await signal.wait(after: seen)
        state.loopParked(false)
    }

    /// Returns at a signal of `first` newer than `seenFirst` or of `second` newer than
    /// `seenSecond`, or at `deadline` (ms since 1970).
    func waitForEither(_ first: ChangeSignal, after seenFirst: UInt64, or second: ChangeSignal, after seenSecond: UInt64, until deadline: Int64) async {
        let time = configuration.timeSource
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first.wait(after: seenFirst) }
            group.addTask { await second.wait(after: seenSecond) }
            group.addTask { try? await time.sleep(until: Date(millisecondsSince1970: deadline)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Resumes this process's work after ``pause(gracePeriod:)``: the dispatcher claims again,
    /// maintenance and schedules go on, and handles look at the store again.
    func resume() {
        state.resume()
        wake.signal()
        maintenanceWake.signal()
        scheduleWake.signal()
        jobChanges.signal()
        logger.debug("resumed in this process", metadata: ["worker.id": "\(configuration.workerID)"])
    }
}
