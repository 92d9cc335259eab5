import DurableQueue

extension PostgresRows: SignalRows {
    func endingRow(_ id: JobID) async throws -> (row: EndingRow, historyCount: Int64)? {
        try await store.lockedEndingRow(session, id).map { ($0, 0) }
    }

    func signalPayload(_ id: JobID, name: String) async throws -> String? {
        try await session.rows("SELECT payload::text FROM job_signals WHERE job_id = $1 AND name = $2", [id.rawValue, name]).first?.string(0)
    }

    func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool {
        try await store.recordStep(session, step, attempt: attempt, owner: owner)
    }

    func wait(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, for name: String,
        deadline: Int64?, now: Int64, reason: String
    ) async throws {
        try await session.execute(
            """
            UPDATE jobs SET state = $2, lease_owner = NULL, lease_expires_at = NULL, attempts = attempts - 1,
                            finished_at = $3, updated_at = $4
            WHERE id = $1
            """,
            [attempt.job.rawValue, state.rawValue, state.isTerminal ? now : nil, now])
        try await store.recordWaitTarget(session, of: attempt.job.rawValue, name: name, deadline: deadline, active: state == .waiting)
        try await store.takeBackProgress(session, of: attempt.job.rawValue, attempt: attempt.number)
        try await store.appendEvent(session, attempt.job, now: now, from: .running, to: state, attempt: attempt.number - 1, reason: reason, worker: owner)
    }

    func signalTarget(_ id: JobID) async throws -> SignalTarget? {
        guard
            let row = try await session.rows(
                """
                SELECT j.state, w.waiting_for, j.attempts FROM jobs AS j LEFT JOIN job_wait_targets AS w ON w.job_id = j.id
                WHERE j.id = $1 FOR NO KEY UPDATE OF j
                """, [id.rawValue]
            ).first
        else { return nil }
        return SignalTarget(state: try JobState(stored: row.string(0)), waitingFor: try row.optionalString(1), attempts: try row.int(2))
    }

    func keepSignal(_ id: JobID, name: String, payload: String, now: Int64) async throws -> Bool {
        try await session.execute(
            """
            INSERT INTO job_signals (job_id, name, payload, sent_at) VALUES ($1, $2, $3::jsonb, $4)
            ON CONFLICT (job_id, name) DO NOTHING
            """, [id.rawValue, name, payload, now]) == 1
    }

    func wake(_ id: JobID, attempts: Int, now: Int64, reason: String) async throws {
        try await session.execute("UPDATE jobs SET state = 'pending', run_at = $2, updated_at = $2 WHERE id = $1", [id.rawValue, now])
        try await store.endWaitTarget(session, of: id.rawValue)
        try await store.appendEvent(session, id, now: now, from: .waiting, to: .pending, attempt: attempts, reason: reason)
    }

    func passedWaits(now: Int64) async throws -> [PassedWait] {
        try await store.forgetEndedWaitTargets(session, before: now)
        return try await session.rows(
            """
            SELECT j.id, j.attempts, w.waiting_for, w.wait_deadline FROM job_wait_targets AS w JOIN jobs AS j ON j.id = w.job_id
            WHERE w.active = 'waiting' AND w.due_at < $1 AND j.state = 'waiting'
            ORDER BY j.id
            FOR NO KEY UPDATE OF j SKIP LOCKED
            """, [now]
        ).map { row in
            PassedWait(job: JobID(try row.int64(0)), attempts: try row.int(1), name: try row.string(2), deadline: try row.int64(3))
        }
    }

    func recordTimeout(of wait: PassedWait, attempt: Int, output: String, now: Int64) async throws {
        try await session.execute(
            """
            INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES ($1, $2, $3, $4::jsonb, $5)
            ON CONFLICT (job_id, name) DO NOTHING
            """, [wait.job.rawValue, SignalRule.stepName(wait.name), attempt, output, now])
    }
}
