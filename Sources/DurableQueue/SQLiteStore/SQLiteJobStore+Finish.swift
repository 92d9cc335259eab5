import Foundation

extension SQLiteJobStore {
    /// Records how attempts ended, all in one transaction (group commit), each with its event row,
    /// then claims as `next` asks in the same transaction: the jobs it claims take the ended
    /// attempts' places at the cost of one commit for both.
    ///
    /// A report for an attempt the row no longer shows running under its worker (the lease expired
    /// and the job was recovered, perhaps run again) changes nothing but a history note that its
    /// outcome was discarded. A retry becomes `failed` when the job has used all its attempts, and
    /// any end, a success included, becomes `cancelled` when a cancel was requested before it.
    package func finishAttempts(_ attempts: [FinishedAttempt], now: Int64, thenClaim next: ClaimRequest?) throws -> FinishResult {
        try write("record the end of \(attempts.count) attempt(s)") {
            var recorded: [JobID: JobState] = [:]
            // Once per transaction rather than a probe per ending: most files have no cache entries.
            let cacheInUse = try cacheInUse()
            for attempt in attempts {
                if let state = try record(attempt, cacheInUse: cacheInUse, now: now) { recorded[attempt.id] = state }
            }
            return FinishResult(states: recorded, claimed: try next.map(claimWithinTransaction) ?? [])
        }
    }

    private func record(_ attempt: FinishedAttempt, cacheInUse: Bool, now: Int64) throws -> JobState? {
        var row: (attempts: Int, maxAttempts: Int?, cancelRequested: Bool, queue: String, throttleInterval: Int64, group: GroupID?,
                  progressed: Int)?
        try connection.query(
            """
            SELECT attempts, max_attempts, cancel_requested, queue, throttle_interval_ms, group_id, progressed_attempts FROM jobs
            WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?
            """, [attempt.id.rawValue, attempt.owner, attempt.attempt.number]
        ) { found in
            row = (
                Int(found.int64(0)), found.optionalInt(1), found.int64(2) != 0, found.string(3), found.int64(4),
                found.optionalInt64(5).map { GroupID($0) }, Int(found.int64(6))
            )
        }
        guard let row else {
            try noteDiscarded(attempt, now: now)
            return nil
        }

        let ending = ResolvedEnding(
            attempt.outcome, attempts: row.attempts, maxAttempts: row.maxAttempts, progressedAttempts: row.progressed,
            cancelRequested: row.cancelRequested, now: now)
        let (state, reason) = (ending.state, ending.reason)
        // An attempt that does not count (a snooze) is taken back, as a release takes one back.
        let uncounted = ending.countsAttempt ? 0 : 1
        try connection.execute(
            """
            UPDATE jobs SET state = ?2, output = coalesce(?3, output), error = coalesce(?4, error),
                            run_at = coalesce(?5, run_at), finished_at = ?6, lease_owner = NULL,
                            lease_expires_at = NULL, updated_at = ?7, attempts = attempts - ?8,
                            progressed_attempts = progressed_attempts - (?8 AND checkpoint_attempt IS attempts),
                            checkpoint_attempt = CASE WHEN ?8 AND checkpoint_attempt IS attempts THEN NULL
                                                      ELSE checkpoint_attempt END
            WHERE id = ?1
            """,
            [
                attempt.id.rawValue, state.rawValue, ending.output, try ending.failure.map(JobCodec.encode), ending.runAt,
                state.isTerminal ? now : nil, now, uncounted,
            ])
        try appendEvent(
            attempt.id, now: now, from: .running, to: state, attempt: row.attempts - uncounted, reason: reason, worker: attempt.owner)
        try recordEnd(queue: row.queue, interval: row.throttleInterval, now: now)
        if state.isTerminal { try jobEnded(attempt.id, group: row.group, cacheInUse: cacheInUse, now: now) }
        return state
    }

    /// Appends a history note that `attempt` ended after the row stopped showing it running under its
    /// owner (its lease expired and the job was recovered, perhaps run and finished by another
    /// attempt): its outcome is discarded. The job's state does not change, so the note goes from and
    /// to the current state; a job that no longer exists gets none.
    private func noteDiscarded(_ attempt: FinishedAttempt, now: Int64) throws {
        guard let (state, _, _) = try stateRow(attempt.id) else { return }
        try appendEvent(
            attempt.id, now: now, from: state, to: state, attempt: attempt.attempt.number,
            reason: ResolvedEnding.discardedNote(attempt.outcome, attempt: attempt.attempt.number),
            worker: attempt.owner)
    }

    /// Saves a running attempt's progress (0…1) and checkpoint; not a state change, so no event row.
    ///
    /// The first save of a new checkpoint by an attempt marks the attempt as one that made progress:
    /// it does not count against the job's attempt limit.
    /// - Returns: false if `owner` no longer holds `attempt` (its lease was lost): nothing was saved.
    package func saveProgress(_ attempt: AttemptID, owner: String, progress: Double?, checkpoint: [UInt8]?, now: Int64) throws
        -> Bool
    {
        if let progress, !(0...1).contains(progress) {
            throw DurableQueueError.invalidArgument("progress", "\(progress) is outside 0…1")
        }
        return try write("save the progress of job \(attempt.job)") {
            try connection.execute(
                """
                UPDATE jobs SET progress = coalesce(?3, progress),
                                progressed_attempts = progressed_attempts
                                    + (?4 IS NOT NULL AND checkpoint IS NOT ?4 AND checkpoint_attempt IS NOT attempts),
                                checkpoint_attempt = CASE WHEN ?4 IS NOT NULL AND checkpoint IS NOT ?4 THEN attempts
                                                          ELSE checkpoint_attempt END,
                                checkpoint = coalesce(?4, checkpoint), updated_at = ?5
                WHERE id = ?1 AND state = 'running' AND lease_owner = ?2 AND attempts = ?6
                """, [attempt.job.rawValue, owner, progress, checkpoint, now, attempt.number])
            return connection.changes == 1
        }
    }
}
