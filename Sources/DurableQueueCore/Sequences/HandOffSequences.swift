/// Hand-offs to carriers outside the process, written once for every store over its
/// ``StoreRows``; the decisions are ``HandOffRule``'s and every ending's (``ResolvedEnding``).
package enum HandOffSequences {
    /// Hands `attempt`, which `owner` runs, to a carrier: the job becomes `handed_off` with
    /// `request` in its row (its deadline counted from the transaction's time) and no lease, or
    /// `cancelled` if a cancel was requested first (with what depends on it).
    ///
    /// - Returns: The job's state now; nil (nothing written) if the row no longer shows the attempt
    ///   running under `owner`.
    package static func handOff(_ attempt: AttemptID, owner: String, to request: HandOffRequest, in rows: some StoreRows, now: Int64)
        async throws -> JobState?
    {
        guard let found = try await rows.endingRow(attempt.job), found.row.isRunning(attempt, owner: owner) else { return nil }
        let now = try await rows.timeAfterLocks(now)
        let target = request.target(recordedAt: now)
        let state = HandOffRule.state(cancelRequested: found.row.cancelRequested)
        try await rows.handOff(
            attempt, owner: owner, row: found, as: state, to: target, now: now, reason: HandOffRule.reason(target, state: state, now: now))
        if state.isTerminal {
            let row = found.row
            try await rows.recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
            try await EndingSequences.jobEnded(attempt.job, group: row.group, in: rows, now: now)
        }
        return state
    }

    /// Ends handed-off `attempt` as `outcome` says (the rule of every ending), if the row still
    /// shows that attempt handed off; otherwise notes the refused report in the job's history.
    ///
    /// - Throws: `jobNotFound`.
    package static func completeHandOff(
        _ attempt: AttemptID, outcome: AttemptOutcome, reporter: String, in rows: some StoreRows, now: Int64
    ) async throws -> HandOffCompletion {
        guard let found = try await rows.endingRow(attempt.job) else { throw DurableQueueError.jobNotFound(attempt.job) }
        let now = try await rows.timeAfterLocks(now)
        let row = found.row
        guard HandOffRule.isCurrent(attempt, state: row.state, attempts: row.attempts) else {
            try await rows.noteUnchanged(
                found, attempt: attempt.number, reporter: reporter, now: now,
                reason: HandOffRule.refusedNote(outcome, attempt: attempt.number, state: row.state, current: row.attempts))
            return .refused(state: row.state, attempt: row.attempts)
        }
        let ending = row.resolve(FinishedAttempt(attempt, owner: reporter, outcome: outcome), now: now)
        try await rows.recordHandOffEnding(ending, of: attempt, reporter: reporter, row: found, now: now)
        try await rows.recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
        if ending.state.isTerminal { try await EndingSequences.jobEnded(attempt.job, group: row.group, in: rows, now: now) }
        return .recorded(ending.state)
    }
}
