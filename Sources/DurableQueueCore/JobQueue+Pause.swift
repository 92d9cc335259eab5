import Synchronization

extension JobQueue {
    /// Pauses this queue's work in this process, for an app about to be suspended: nothing is
    /// claimed, running attempts are stopped and their jobs given back, and the SQLite file is
    /// closed, so that nothing holds a lock on it while the process is suspended.
    ///
    /// Unlike ``Queues/pause(_:)``, which every process on the file obeys (an app's extension too),
    /// this pause is this process's alone, and forgotten when it exits.
    ///
    /// Attempts still running are stopped (their tasks are cancelled) and go back to `pending`,
    /// recorded in their history ("given back: this process paused") and not counted against their
    /// attempts: a job is never failed for suspensions. A handler that ignores the stop for
    /// `gracePeriod` is abandoned, its job given back all the same, and whatever it returns later
    /// discarded. A drain under way returns (its report's ending is `paused`). Returns when
    /// nothing runs here and the file, its `-wal` and `-shm` are closed.
    ///
    /// While paused, ``run()`` keeps running but claims nothing and reads nothing; handles waiting
    /// for a job do not poll. Calls made meanwhile (an enqueue, a handle's read) open the file for
    /// themselves and close it before they return; a drain (a background task's) runs, holding the
    /// file open until it returns, and pauses the engine again (see ``drain(until:gracePeriod:)``). Call it from the scene phase's change to the background, inside the
    /// few seconds of background time the system grants, and ``resumeInThisProcess()`` on the way
    /// back.
    ///
    /// - Parameter gracePeriod: How long stopped handlers may take to return before they are
    ///   abandoned; not negative.
    public func pauseInThisProcess(gracePeriod: Duration = defaultGracePeriod) async {
        precondition(gracePeriod >= .zero, "gracePeriod \(gracePeriod) is negative")
        await inTurn { [engine, store] in
            await engine.pause(gracePeriod: gracePeriod.milliseconds)
            await store.setPaused(true)
        }
    }

    /// Resumes this queue's work in this process after ``pauseInThisProcess(gracePeriod:)``: the
    /// file opens at its next use, and claims, maintenance, schedules and handles go on. Work another
    /// process added meanwhile is found at once. Nothing happens if the process had not paused.
    public func resumeInThisProcess() async {
        await inTurn { [engine, store] in
            guard engine.state.isPaused else { return }
            await store.setPaused(false)
            engine.resume()
        }
    }

    /// Whether this process paused this queue's work (see ``pauseInThisProcess(gracePeriod:)``).
    public var isPausedInThisProcess: Bool { engine.state.isPaused }

    /// Runs `transition` after the pauses and resumes called before it have ended.
    private func inTurn(_ transition: @escaping @Sendable () async -> Void) async {
        let task = pauseTransition.withLock { latest in
            let previous = latest
            let next = Task {
                await previous?.value
                await transition()
            }
            latest = next
            return next
        }
        await task.value
    }
}
