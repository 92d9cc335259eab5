import DurableQueue

extension PostgresJobStore {
    /// Waits running `attempt` for signal `name`: takes the signal if the job has it (recorded as the
    /// wait's step), else ends the attempt uncounted and the job waits. Nil if the row (locked) no
    /// longer shows the attempt running under `owner`: nothing was written.
    package func waitForSignal(_ attempt: AttemptID, owner: String, name: String, timeout: Int64?, now: Int64) async throws
        -> SignalWait?
    {
        try await write("wait for signal '\(name)' in job \(attempt.job)") { [self] session in
            guard let row = try await lockedEndingRow(session, attempt.job), row.isRunning(attempt, owner: owner) else {
                return nil
            }
            let now = stamp(now)  // the job's row is locked
            let sent = try await session.rows(
                "SELECT payload::text FROM job_signals WHERE job_id = $1 AND name = $2", [attempt.job.rawValue, name])
            if let payload = try sent.first?.string(0) {
                let step = StepRecord(
                    job: attempt.job, name: SignalRule.stepName(name), attempt: attempt.number,
                    output: SignalRule.receivedOutput(payload: payload), recordedAt: now)
                guard try await recordStep(session, step, attempt: attempt, owner: owner) else { return nil }
                return .received(payload: payload)
            }
            let state = SignalRule.waitState(cancelRequested: row.cancelRequested)
            let deadline = SignalRule.deadline(timeout: timeout, recordedAt: now)
            // The attempt is taken back, as a sleep's or a pause's is (SignalRule.waitedAttempt):
            // the run after the wait has its number again.
            try await session.execute(
                """
                UPDATE jobs SET state = $2, lease_owner = NULL, lease_expires_at = NULL, waiting_for = $3, wait_deadline = $4,
                                attempts = attempts - 1,
                                progressed_attempts = progressed_attempts - CASE WHEN checkpoint_attempt = attempts THEN 1 ELSE 0 END,
                                checkpoint_attempt = CASE WHEN checkpoint_attempt = attempts THEN NULL ELSE checkpoint_attempt END,
                                finished_at = $5, updated_at = $6
                WHERE id = $1
                """,
                [attempt.job.rawValue, state.rawValue, name, deadline, state.isTerminal ? now : nil, now])
            try await appendEvent(
                session, attempt.job, now: now, from: .running, to: state, attempt: attempt.number - 1,
                reason: SignalRule.waitReason(name, deadline: deadline, state: state, now: now), worker: owner)
            try await recordEnd(session, queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
            if state.isTerminal { try await jobEnded(session, attempt.job, group: row.group, now: now) }
            return .ended(state)
        }
    }

    /// Sends signal `name` to job `job`: kept once per job and name; a job waiting for it becomes
    /// `pending`. The job's row is locked first, so a wait committing meanwhile is seen or sees it.
    package func signal(_ job: JobID, name: String, payload: String, now: Int64) async throws -> SignalResult {
        try await write("signal '\(name)' to job \(job)") { [self] session in
            guard
                let row = try await session.rows(
                    "SELECT state, waiting_for, attempts FROM jobs WHERE id = $1 FOR UPDATE", [job.rawValue]
                ).first
            else { throw DurableQueueError.jobNotFound(job) }
            let now = stamp(now)  // the job's row is locked
            let state = try JobState(stored: row.string(0))
            var alreadySent = false
            if !state.isTerminal {
                let inserted = try await session.execute(
                    """
                    INSERT INTO job_signals (job_id, name, payload, sent_at) VALUES ($1, $2, $3::jsonb, $4)
                    ON CONFLICT (job_id, name) DO NOTHING
                    """, [job.rawValue, name, payload, now])
                alreadySent = inserted == 0
            }
            let result = SignalRule.delivery(state: state, waitingFor: try row.optionalString(1), name: name, alreadySent: alreadySent)
            if result == .wokeJob {
                try await session.execute(
                    "UPDATE jobs SET state = 'pending', run_at = $2, updated_at = $2 WHERE id = $1", [job.rawValue, now])
                try await appendEvent(
                    session, job, now: now, from: .waiting, to: .pending, attempt: try row.int(2), reason: SignalRule.receivedReason(name))
            }
            return result
        }
    }

    /// The earliest wait timeout or hand-off deadline, each the first entry of its partial index.
    package func nextDeadline() async throws -> Int64? {
        try await read("find the next deadline of a wait or a hand-off") { session in
            try await session.int64(
                """
                SELECT least((SELECT min(wait_deadline) FROM jobs WHERE state = 'waiting'),
                             (SELECT min(handoff_deadline) FROM jobs WHERE state = 'handed_off'))
                """)
        }
    }

    /// Ends the waits whose deadline is before `now`: each records its timeout as the wait's step and
    /// its job becomes `pending`. Rows another transaction holds (a signal being sent) are left for
    /// the next round.
    package func endPassedWaits(now: Int64) async throws -> [JobID] {
        try await write("end the waits past their deadline", now: now) { [self] session, now in
            let passed = try await session.rows(
                """
                SELECT id, attempts, waiting_for, wait_deadline FROM jobs
                WHERE state = 'waiting' AND wait_deadline < $1
                ORDER BY id
                FOR UPDATE SKIP LOCKED
                """, [now])
            var ended: [JobID] = []
            for row in passed {
                let (id, attempts, name) = (JobID(try row.int64(0)), try row.int(1), try row.string(2))
                try await session.execute(
                    """
                    INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES ($1, $2, $3, $4::jsonb, $5)
                    ON CONFLICT (job_id, name) DO NOTHING
                    """,
                    [id.rawValue, SignalRule.stepName(name), SignalRule.waitedAttempt(attempts: attempts), SignalRule.timedOutOutput(deadline: try row.int64(3)), now])
                try await session.execute("UPDATE jobs SET state = 'pending', run_at = $2, updated_at = $2 WHERE id = $1", [id.rawValue, now])
                try await appendEvent(
                    session, id, now: now, from: .waiting, to: .pending, attempt: attempts, reason: SignalRule.timedOutReason(name))
                ended.append(id)
            }
            return ended
        }
    }
}
