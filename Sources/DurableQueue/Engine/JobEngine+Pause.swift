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
            let seen = wake.generation
            if state.isQuiet { break }
            // Attempts admitted since are stopped too (and give their jobs back without starting).
            state.stopAll(.paused)
            if !abandoned && now >= abandonAt {
                state.abandonAll()
                abandoned = true
            }
            // Every attempt's end, and a drain's, wakes this loop.
            let until = abandoned ? Int64.max / 2 : abandonAt
            await wake.wait(after: seen, until: Date(millisecondsSince1970: until), time: configuration.timeSource)
        }
        logger.debug("paused in this process", metadata: ["worker.id": "\(configuration.workerID)"])
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
