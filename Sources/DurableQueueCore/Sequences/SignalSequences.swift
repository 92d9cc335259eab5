/// Waits for signals and their ends, written once for every store over its ``StoreRows``; the
/// decisions are ``SignalRule``'s.
package enum SignalSequences {
    /// Waits running `attempt`, which `owner` runs, for signal `name`: when the job has it, records
    /// it as the wait's step and returns it; else the attempt ends without counting and the job
    /// waits (or is cancelled, if a cancel was requested first), with what depends on it when it
    /// ended. Nil (nothing written) if the row no longer shows `attempt` running under `owner`.
    package static func waitForSignal(
        _ attempt: AttemptID, owner: String, name: String, timeout: Int64?, in rows: some StoreRows, now: Int64
    ) async throws -> SignalWait? {
        guard let found = try await rows.endingRow(attempt.job), found.row.isRunning(attempt, owner: owner) else { return nil }
        let now = try await rows.timeAfterLocks(now)
        if let payload = try await rows.signalPayload(attempt.job, name: name) {
            let step = StepRecord(
                job: attempt.job, name: SignalRule.stepName(name), attempt: attempt.number,
                output: SignalRule.receivedOutput(payload: payload), recordedAt: now)
            guard try await rows.recordStep(step, attempt: attempt, owner: owner) else { return nil }
            return .received(payload: payload)
        }
        let state = SignalRule.waitState(cancelRequested: found.row.cancelRequested)
        let deadline = SignalRule.deadline(timeout: timeout, recordedAt: now)
        // The attempt is taken back, as a sleep's or a pause's is (SignalRule.waitedAttempt): the
        // run after the wait has its number again.
        try await rows.wait(
            attempt, owner: owner, row: found, as: state, for: name, deadline: deadline, now: now,
            reason: SignalRule.waitReason(name, deadline: deadline, state: state, now: now))
        let row = found.row
        try await rows.recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
        if state.isTerminal { try await EndingSequences.jobEnded(attempt.job, group: row.group, in: rows, now: now) }
        return .ended(state)
    }

    /// Sends signal `name` with `payload` (JSON text) to job `id`, as
    /// ``SignalRule/delivery(state:waitingFor:name:alreadySent:)`` says: kept (one per job and
    /// name), and a job waiting for it made `pending`. The job's row is locked first, so a wait
    /// committing meanwhile is seen or sees it.
    ///
    /// - Throws: `jobNotFound`.
    package static func signal(_ id: JobID, name: String, payload: String, in rows: some StoreRows, now: Int64) async throws
        -> SignalResult
    {
        guard let target = try await rows.signalTarget(id) else { throw DurableQueueError.jobNotFound(id) }
        let now = try await rows.timeAfterLocks(now)
        var alreadySent = false
        if !target.state.isTerminal { alreadySent = try await !rows.keepSignal(id, name: name, payload: payload, now: now) }
        let result = SignalRule.delivery(state: target.state, waitingFor: target.waitingFor, name: name, alreadySent: alreadySent)
        if result == .wokeJob {
            try await rows.wake(id, attempts: target.attempts, now: now, reason: SignalRule.receivedReason(name))
        }
        return result
    }

    /// Ends the waits whose deadline is before `now`: each records its timeout as the wait's step
    /// and its job becomes `pending`.
    ///
    /// - Returns: Those jobs.
    package static func endPassedWaits(in rows: some StoreRows, now: Int64) async throws -> [JobID] {
        var ended: [JobID] = []
        for wait in try await rows.passedWaits(now: now) {
            try await rows.recordTimeout(
                of: wait, attempt: SignalRule.waitedAttempt(attempts: wait.attempts), output: SignalRule.timedOutOutput(deadline: wait.deadline),
                now: now)
            try await rows.wake(wait.job, attempts: wait.attempts, now: now, reason: SignalRule.timedOutReason(wait.name))
            ended.append(wait.job)
        }
        return ended
    }
}
