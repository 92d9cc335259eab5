extension SQLiteJobStore {
    /// Hands `attempt`, which `owner` runs, to a carrier: the job becomes `handed_off` with
    /// `request` in its row and no lease (or `cancelled`, if a cancel was requested first).
    ///
    /// - Returns: The job's state now; nil if the row no longer shows the attempt running under
    ///   `owner` (its lease was lost): nothing was written.
    package func handOff(_ attempt: AttemptID, owner: String, to request: HandOffRequest, now: Int64) throws -> JobState? {
        try write("hand job \(attempt.job) off to '\(request.carrier)'", now: now) { now in
            guard let (row, eventCount) = try endingRows([attempt.job]).first, row.isRunning(attempt, owner: owner) else {
                return nil
            }
            let target = request.target(recordedAt: now)
            let state = HandOffRule.state(cancelRequested: row.cancelRequested)
            try connection.execute(
                """
                UPDATE jobs SET state = ?2, lease_owner = NULL, lease_expires_at = NULL, handed_off_to = ?3,
                                handoff_reference = ?4, handoff_deadline = ?5, finished_at = ?6, updated_at = ?7,
                                event_count = event_count + 1
                WHERE id = ?1
                """,
                [attempt.job.rawValue, state.rawValue, target.carrier, target.reference, target.deadline,
                 state.isTerminal ? now : nil, now])
            try appendEvents([
                EventRow(
                    job: attempt.job, at: now, from: .running, to: state, attempt: attempt.number,
                    reason: HandOffRule.reason(target, state: state, now: now), worker: owner, seq: eventCount + 1)
            ])
            if state.isTerminal {
                try recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
                try jobEnded(attempt.job, group: row.group, now: now)
            }
            return state
        }
    }

    /// Ends handed-off `attempt` as `outcome` says (the rule of every ending), if the row still shows
    /// that attempt handed off; otherwise notes the refused report in the job's history.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func completeHandOff(_ attempt: AttemptID, outcome: AttemptOutcome, reporter: String, now: Int64) throws
        -> HandOffCompletion
    {
        try write("record the end of handed-off job \(attempt.job)", now: now) { now in
            guard let (row, eventCount) = try endingRows([attempt.job]).first else {
                throw DurableQueueError.jobNotFound(attempt.job)
            }
            guard HandOffRule.isCurrent(attempt, state: row.state, attempts: row.attempts) else {
                try appendEvents([
                    EventRow(
                        job: attempt.job, at: now, from: row.state, to: row.state, attempt: attempt.number,
                        reason: HandOffRule.refusedNote(outcome, attempt: attempt.number, state: row.state, current: row.attempts),
                        worker: reporter)
                ])
                return .refused(state: row.state, attempt: row.attempts)
            }
            let ending = FinishedAttempt(attempt, owner: reporter, outcome: outcome)
            let (state, event) = try record(ending, row: row, eventCount: eventCount, now: now, from: .handedOff)
            try appendEvents([event])
            try recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
            if state.isTerminal { try jobEnded(attempt.job, group: row.group, now: now) }
            return .recorded(state)
        }
    }

    /// The jobs handed off to `carrier` now, read through the index of handed-off jobs (a scan of
    /// the transfers in flight, never of the table).
    package func handOffs(carrier: String) throws -> [HandedOffJob] {
        try read("list the jobs handed off to '\(carrier)'") {
            var found: [HandedOffJob] = []
            try connection.query(Self.handOffsOfCarrier, [carrier]) { row in
                found.append(
                    HandedOffJob(attempt: AttemptID(job: JobID(row.int64(0)), number: Int(row.int64(1))), reference: row.string(2)))
            }
            // In id order, sorted here: ORDER BY id made SQLite walk the whole table by rowid.
            return found.sorted { $0.attempt.job < $1.attempt.job }
        }
    }

    /// The jobs handed off to carrier `?1`: their id, attempt and reference.
    static let handOffsOfCarrier = """
        SELECT id, attempts, handoff_reference FROM jobs
        WHERE state = 'handed_off' AND handed_off_to = ?1
        """
}
