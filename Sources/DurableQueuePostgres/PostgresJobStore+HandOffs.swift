import DurableQueue

extension PostgresJobStore {
    /// Hands `attempt`, which `owner` runs, to a carrier: the job becomes `handed_off` with
    /// `request` in its row and no lease (or `cancelled`, if a cancel was requested first). Nil if the row no
    /// longer shows the attempt running under `owner`: nothing was written.
    package func handOff(_ attempt: AttemptID, owner: String, to request: HandOffRequest, now: Int64) async throws -> JobState? {
        try await write("hand job \(attempt.job) off to '\(request.carrier)'") { [self] session in
            guard let row = try await lockedEndingRow(session, attempt.job), row.isRunning(attempt, owner: owner) else {
                return nil
            }
            let now = stamp(now)  // the job's row is locked
            let target = request.target(recordedAt: now)
            let state = HandOffRule.state(cancelRequested: row.cancelRequested)
            try await session.execute(
                """
                UPDATE jobs SET state = $2, lease_owner = NULL, lease_expires_at = NULL, handed_off_to = $3,
                                handoff_reference = $4, handoff_deadline = $5, finished_at = $6, updated_at = $7
                WHERE id = $1
                """,
                [attempt.job.rawValue, state.rawValue, target.carrier, target.reference, target.deadline,
                 state.isTerminal ? now : nil, now])
            try await appendEvent(
                session, attempt.job, now: now, from: .running, to: state, attempt: attempt.number,
                reason: HandOffRule.reason(target, state: state, now: now), worker: owner)
            if state.isTerminal {
                try await recordEnd(session, queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
                try await jobEnded(session, attempt.job, group: row.group, now: now)
            }
            return state
        }
    }

    /// Ends handed-off `attempt` as `outcome` says (the rule of every ending), if the row still shows
    /// that attempt handed off; otherwise notes the refused report in the job's history.
    package func completeHandOff(_ attempt: AttemptID, outcome: AttemptOutcome, reporter: String, now: Int64) async throws
        -> HandOffCompletion
    {
        try await write("record the end of handed-off job \(attempt.job)") { [self] session in
            guard let row = try await lockedEndingRow(session, attempt.job) else { throw DurableQueueError.jobNotFound(attempt.job) }
            let now = stamp(now)  // the job's row is locked
            guard HandOffRule.isCurrent(attempt, state: row.state, attempts: row.attempts) else {
                try await appendEvent(
                    session, attempt.job, now: now, from: row.state, to: row.state, attempt: attempt.number,
                    reason: HandOffRule.refusedNote(outcome, attempt: attempt.number, state: row.state, current: row.attempts),
                    worker: reporter)
                return .refused(state: row.state, attempt: row.attempts)
            }
            let ending = row.resolve(FinishedAttempt(attempt, owner: reporter, outcome: outcome), now: now)
            let uncounted = ending.countsAttempt ? 0 : 1
            try await session.execute(
                """
                UPDATE jobs SET state = $2, output = coalesce($3::jsonb, output), error = coalesce($4::jsonb, error),
                                run_at = coalesce($5, run_at), finished_at = $6, updated_at = $7, attempts = attempts - $8,
                                progressed_attempts = progressed_attempts
                                    - CASE WHEN $8 = 1 AND checkpoint_attempt = attempts THEN 1 ELSE 0 END,
                                checkpoint_attempt = CASE WHEN $8 = 1 AND checkpoint_attempt = attempts THEN NULL
                                                          ELSE checkpoint_attempt END
                WHERE id = $1
                """,
                [attempt.job.rawValue, ending.state.rawValue, ending.output, try ending.failure.map(JobCodec.encode), ending.runAt,
                 ending.state.isTerminal ? now : nil, now, uncounted])
            try await appendEvent(
                session, attempt.job, now: now, from: .handedOff, to: ending.state, attempt: row.attempts - uncounted,
                reason: ending.reason, worker: reporter)
            try await recordEnd(session, queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
            if ending.state.isTerminal { try await jobEnded(session, attempt.job, group: row.group, now: now) }
            return .recorded(ending.state)
        }
    }

    /// The jobs handed off to `carrier` now, through the index of handed-off jobs.
    package func handOffs(carrier: String) async throws -> [HandedOffJob] {
        try await read("list the jobs handed off to '\(carrier)'") { session in
            try await session.rows(
                """
                SELECT id, attempts, handoff_reference FROM jobs
                WHERE state = 'handed_off' AND handed_off_to = $1
                ORDER BY id
                """, [carrier]
            ).map { row in
                HandedOffJob(attempt: AttemptID(job: JobID(try row.int64(0)), number: try row.int(1)), reference: try row.string(2))
            }
        }
    }

    /// Job `id`'s row as an ending reads it, locked for the rest of the transaction; nil if there is none.
    func lockedEndingRow(_ session: PostgresSession, _ id: JobID) async throws -> EndingRow? {
        try await session.rows(
            """
            SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue, throttle_interval_ms, group_id,
                   progressed_attempts, 0, partition_key
            FROM jobs WHERE id = $1 FOR UPDATE
            """, [id.rawValue]
        ).first.map(EndingRow.init)
    }
}
