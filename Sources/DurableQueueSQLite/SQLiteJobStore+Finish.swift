import DurableQueueCore
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
        try write("record the end of \(attempts.count) attempt(s)", now: now) { now in
            var recorded: [JobID: JobState] = [:]
            let (cacheInUse, dependenciesWaiting) = try endingHooksInUse()
            var events: [EventRow] = []
            for start in stride(from: 0, to: attempts.count, by: Self.rowsPerStatement) {
                let run = attempts[start..<min(start + Self.rowsPerStatement, attempts.count)]
                // The rows of the run's jobs in one read. Each is used once: a job reported twice is
                // read again, as is every job once an ending has changed other jobs (a group's).
                var rows = try endingRows(run.map(\.id))
                for attempt in run {
                    let found: (row: EndingRow, eventCount: Int64)?
                    if let index = rows.firstIndex(where: { $0.row.id == attempt.id }) {
                        found = rows.remove(at: index)
                    } else {
                        found = try endingRows([attempt.id]).first
                    }
                    guard let (row, eventCount) = found, row.isRunning(attempt) else {
                        if let found { events.append(discardedNote(attempt, state: found.row.state, now: now)) }
                        continue
                    }
                    let (state, event) = try record(attempt, row: row, eventCount: eventCount, now: now)
                    recorded[attempt.id] = state
                    events.append(event)
                    try recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
                    guard state.isTerminal, cacheInUse || dependenciesWaiting || row.group != nil else { continue }
                    // What depends on the job changes with it, after its history row.
                    try appendEvents(events)
                    events.removeAll()
                    try jobEnded(attempt.id, group: row.group, cacheInUse: cacheInUse, dependenciesWaiting: dependenciesWaiting, now: now)
                    if row.group != nil { rows.removeAll() }
                }
            }
            try appendEvents(events)
            return FinishResult(states: recorded, claimed: try next.map { try claimWithinTransaction($0.at(now)) } ?? [])
        }
    }

    /// The rows of jobs `ids` (at most ``rowsPerStatement``), in any order, each with the job's
    /// event count; a job that no longer exists has none.
    func endingRows(_ ids: [JobID]) throws -> [(row: EndingRow, eventCount: Int64)] {
        var rows: [(row: EndingRow, eventCount: Int64)] = []
        rows.reserveCapacity(ids.count)
        try connection.query(Self.endingRowsStatements[ids.count - 1], binding: { binder in
            for id in ids { binder.bind(id.rawValue) }
        }) { found in
            let row = EndingRow(
                id: JobID(found.int64(0)), state: try JobState(stored: found.string(1)), owner: found.optionalString(2),
                attempts: Int(found.int64(3)), maxAttempts: found.optionalInt(4), cancelRequested: found.int64(5) != 0,
                queue: found.string(6), throttleInterval: found.int64(7), group: found.optionalInt64(8).map { GroupID($0) },
                progressed: Int(found.int64(9)), partitionKey: found.optionalString(11))
            rows.append((row, found.int64(10)))
        }
        return rows
    }

    /// The read of 1 … ``rowsPerStatement`` jobs' ending rows, at the index one less than the count.
    private static let endingRowsStatements = multiRowTexts(
        """
        SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue, \(throttleIntervalOfJob), group_id,
               \(progressedAttemptsOfJob), event_count, partition_key
        FROM jobs WHERE id IN (
        """, tail: ")"
    ) { "?\(1 + $0)" }

    /// Records how `attempt`, which `row` shows running, ended: the row's update, and the history
    /// row to append, numbered after the job's `eventCount` rows.
    func record(_ attempt: FinishedAttempt, row: EndingRow, eventCount: Int64, now: Int64) throws -> (JobState, EventRow) {
        try record(
            row.resolve(attempt, now: now), job: attempt.id, worker: attempt.owner, row: row, eventCount: eventCount, now: now,
            from: .running)
    }

    /// ``record(_:row:eventCount:now:)`` of an ending already resolved, from `from` (`running`, or
    /// `handed_off` for a carrier's report).
    func record(_ ending: ResolvedEnding, job: JobID, worker: String, row: EndingRow, eventCount: Int64, now: Int64, from: JobState)
        throws -> (JobState, EventRow)
    {
        let (state, reason) = (ending.state, ending.reason)
        // An attempt that does not count (a snooze) is taken back, as a release takes one back.
        let uncounted = ending.countsAttempt ? 0 : 1
        if state == .succeeded, ending.countsAttempt, let output = ending.output, ending.failure == nil, ending.runAt == nil {
            try connection.execute(Self.succeededStatement) { binder in
                binder.bind(job.rawValue)
                binder.bind(output)
                binder.bind(now)
            }
        } else {
            try connection.execute(
                Self.endingStatement,
                [
                    job.rawValue, state.rawValue, ending.output, try ending.failure.map(JobCodec.encode), ending.runAt,
                    state.isTerminal ? now : nil, now, uncounted,
                ])
            if uncounted == 1 { try takeBackProgress(of: job.rawValue, attempt: row.attempts) }
        }
        let event = EventRow(
            job: job, at: now, from: from, to: state, attempt: row.attempts - uncounted, reason: reason,
            worker: worker, seq: eventCount + 1)
        return (state, event)
    }

    /// An ending's change of its job's row: `?2` the new state, `?3` the output and `?4` the error
    /// (nil: the row's stay), `?5` the next run time (nil: unchanged), `?6` the finish time (nil
    /// unless terminal), `?7` the time, `?8` 1 if the attempt is taken back (a snooze: its progress
    /// is taken back next, ``takeBackProgress(of:attempt:)``).
    private static let endingStatement = """
        UPDATE jobs SET state = ?2, output = coalesce(?3, output), error = coalesce(?4, error),
                        run_at = coalesce(?5, run_at), finished_at = ?6, lease_owner = NULL,
                        lease_expires_at = NULL, updated_at = ?7, attempts = attempts - ?8, event_count = event_count + 1
        WHERE id = ?1
        """

    /// A success's change of its job's row (`?1` the job, `?2` its output, `?3` the time): the
    /// general ending's update without the columns a success leaves as they are. SQLite checks and
    /// re-indexes only what a statement sets: 7,000 instructions less per ending (callgrind).
    private static let succeededStatement = """
        UPDATE jobs SET state = 'succeeded', output = ?2, finished_at = ?3, lease_owner = NULL, lease_expires_at = NULL,
                        updated_at = ?3, event_count = event_count + 1
        WHERE id = ?1
        """

    /// The history note that `attempt` ended after the row stopped showing it running under its
    /// owner (its lease expired and the job was recovered, perhaps run and finished by another
    /// attempt): its outcome is discarded. The job's state does not change, so the note goes from and
    /// to the current state, `state`.
    private func discardedNote(_ attempt: FinishedAttempt, state: JobState, now: Int64) -> EventRow {
        EventRow(
            job: attempt.id, at: now, from: state, to: state, attempt: attempt.attempt.number,
            reason: ResolvedEnding.discardedNote(attempt.outcome, attempt: attempt.attempt.number), worker: attempt.owner)
    }

    /// Saves a running attempt's progress (0…1) and checkpoint; not a state change, so no event row.
    ///
    /// The first save of a new checkpoint by an attempt marks the attempt as one that made progress:
    /// it does not count against the job's attempt limit.
    ///
    /// With no `owner`, the attempt is one handed off to a carrier (which saves a checkpoint to resume
    /// from if its transfer is lost).
    /// - Returns: false if `owner` no longer holds `attempt` (its lease was lost), or without an
    ///   owner if the row does not show `attempt` handed off: nothing was saved.
    package func saveProgress(_ attempt: AttemptID, owner: String?, progress: Double?, checkpoint: [UInt8]?, now: Int64) throws
        -> Bool
    {
        if let progress, !(0...1).contains(progress) {
            throw DurableQueueError.invalidArgument("progress", "\(progress) is outside 0…1")
        }
        return try write("save the progress of job \(attempt.job)", now: now) { now in
            // The fence first: the row must still show the attempt under its owner.
            try connection.execute(
                """
                UPDATE jobs SET updated_at = ?2, extras = extras | 2
                WHERE id = ?1 AND attempts = ?3
                  AND CASE WHEN ?4 IS NULL THEN state = 'handed_off' ELSE state = 'running' AND lease_owner = ?4 END
                """, [attempt.job.rawValue, now, attempt.number, owner])
            guard try connection.changes == 1 else { return false }
            try connection.execute(
                "INSERT INTO job_attempt_state (job_id) VALUES (?1) ON CONFLICT (job_id) DO NOTHING", [attempt.job.rawValue])
            try connection.execute(
                """
                UPDATE job_attempt_state
                SET progress = coalesce(?2, progress),
                    progressed_attempts = progressed_attempts
                        + (?3 IS NOT NULL AND checkpoint IS NOT ?3 AND checkpoint_attempt IS NOT ?4),
                    checkpoint_attempt = CASE WHEN ?3 IS NOT NULL AND checkpoint IS NOT ?3 THEN ?4 ELSE checkpoint_attempt END,
                    checkpoint = coalesce(?3, checkpoint)
                WHERE job_id = ?1
                """, [attempt.job.rawValue, progress, checkpoint, attempt.number])
            return true
        }
    }
}
