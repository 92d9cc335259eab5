extension SQLiteJobStore {
    /// Waits running `attempt` for signal `name` (see ``JobStore/waitForSignal(_:owner:name:timeout:now:)``).
    package func waitForSignal(_ attempt: AttemptID, owner: String, name: String, timeout: Int64?, now: Int64) throws
        -> SignalWait?
    {
        try write("wait for signal '\(name)' in job \(attempt.job)", now: now) { now in
            guard let (row, eventCount) = try endingRows([attempt.job]).first, row.isRunning(attempt, owner: owner) else {
                return nil
            }
            var sent: String?
            try connection.query("SELECT payload FROM job_signals WHERE job_id = ? AND name = ?", [attempt.job.rawValue, name]) {
                sent = $0.string(0)
            }
            if let payload = sent {
                let step = StepRecord(
                    job: attempt.job, name: SignalRule.stepName(name), attempt: attempt.number,
                    output: SignalRule.receivedOutput(payload: payload), recordedAt: now)
                guard try recordStepInTransaction(step, attempt: attempt, owner: owner) else { return nil }
                return .received(payload: payload)
            }
            let state = SignalRule.waitState(cancelRequested: row.cancelRequested)
            let deadline = SignalRule.deadline(timeout: timeout, recordedAt: now)
            // The attempt is taken back, as a sleep's or a pause's is (SignalRule.waitedAttempt):
            // the run after the wait has its number again.
            try connection.execute(
                """
                UPDATE jobs SET state = ?2, lease_owner = NULL, lease_expires_at = NULL, waiting_for = ?3, wait_deadline = ?4,
                                attempts = attempts - 1,
                                progressed_attempts = progressed_attempts - (checkpoint_attempt IS attempts),
                                checkpoint_attempt = CASE WHEN checkpoint_attempt IS attempts THEN NULL ELSE checkpoint_attempt END,
                                finished_at = ?5, updated_at = ?6, event_count = event_count + 1
                WHERE id = ?1
                """,
                [attempt.job.rawValue, state.rawValue, name, deadline, state.isTerminal ? now : nil, now])
            try appendEvents([
                EventRow(
                    job: attempt.job, at: now, from: .running, to: state, attempt: attempt.number - 1,
                    reason: SignalRule.waitReason(name, deadline: deadline, state: state, now: now), worker: owner,
                    seq: eventCount + 1)
            ])
            try recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.partitionKey, now: now)
            if state.isTerminal { try jobEnded(attempt.job, group: row.group, now: now) }
            return .ended(state)
        }
    }

    /// Sends signal `name` to job `job` (see ``JobStore/signal(_:name:payload:now:)``).
    package func signal(_ job: JobID, name: String, payload: String, now: Int64) throws -> SignalResult {
        try write("signal '\(name)' to job \(job)", now: now) { now in
            var found: (state: JobState, waitingFor: String?, attempts: Int)?
            try connection.query("SELECT state, waiting_for, attempts FROM jobs WHERE id = ?", [job.rawValue]) { row in
                found = (try JobState(stored: row.string(0)), row.optionalString(1), Int(row.int64(2)))
            }
            guard let found else { throw DurableQueueError.jobNotFound(job) }
            var alreadySent = false
            if !found.state.isTerminal {
                try connection.execute(
                    "INSERT INTO job_signals (job_id, name, payload, sent_at) VALUES (?, ?, ?, ?) ON CONFLICT (job_id, name) DO NOTHING",
                    [job.rawValue, name, payload, now])
                alreadySent = try connection.changes == 0
            }
            let result = SignalRule.delivery(state: found.state, waitingFor: found.waitingFor, name: name, alreadySent: alreadySent)
            if result == .wokeJob {
                try connection.execute(
                    "UPDATE jobs SET state = 'pending', run_at = ?2, updated_at = ?2 WHERE id = ?1", [job.rawValue, now])
                try appendEvent(
                    job, now: now, from: .waiting, to: .pending, attempt: found.attempts, reason: SignalRule.receivedReason(name))
            }
            return result
        }
    }

    /// The earliest wait timeout or hand-off deadline (see ``JobStoreReader/nextDeadline()``), each
    /// the first entry of its partial index.
    package func nextDeadline() throws -> Int64? {
        try read("find the next deadline of a wait or a hand-off") {
            try connection.scalarInt64(
                """
                SELECT min(at) FROM (SELECT min(wait_deadline) AS at FROM jobs WHERE state = 'waiting'
                                     UNION ALL
                                     SELECT min(handoff_deadline) FROM jobs WHERE state = 'handed_off')
                """)
        }
    }

    /// Ends the waits whose deadline is before `now` (see ``JobStore/endPassedWaits(now:)``).
    package func endPassedWaits(now: Int64) throws -> [JobID] {
        try write("end the waits past their deadline", now: now) { now in
            var passed: [(id: JobID, attempts: Int, name: String, deadline: Int64)] = []
            try connection.query(Self.passedWaits, [now]) { row in passed.append((JobID(row.int64(0)), Int(row.int64(1)), row.string(2), row.int64(3))) }
            for wait in passed {
                try connection.execute(
                    """
                    INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (job_id, name) DO NOTHING
                    """,
                    [wait.id.rawValue, SignalRule.stepName(wait.name), SignalRule.waitedAttempt(attempts: wait.attempts),
                     SignalRule.timedOutOutput(deadline: wait.deadline), now])
                try connection.execute(
                    "UPDATE jobs SET state = 'pending', run_at = ?2, updated_at = ?2 WHERE id = ?1", [wait.id.rawValue, now])
                try appendEvent(
                    wait.id, now: now, from: .waiting, to: .pending, attempt: wait.attempts, reason: SignalRule.timedOutReason(wait.name))
            }
            return passed.map(\.id)
        }
    }

    /// The waiting jobs whose deadline is before `?1`: a walk of the waiting jobs in idx_jobs_timed.
    static let passedWaits = "SELECT id, attempts, waiting_for, wait_deadline FROM jobs WHERE state = 'waiting' AND wait_deadline < ?1"
}
