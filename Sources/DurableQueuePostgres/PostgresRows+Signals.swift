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
            UPDATE jobs SET state = $2, lease_owner = NULL, lease_expires_at = NULL, waiting_for = $3, wait_deadline = $4,
                            attempts = attempts - 1,
                            progressed_attempts = progressed_attempts - CASE WHEN checkpoint_attempt = attempts THEN 1 ELSE 0 END,
                            checkpoint_attempt = CASE WHEN checkpoint_attempt = attempts THEN NULL ELSE checkpoint_attempt END,
                            finished_at = $5, updated_at = $6
            WHERE id = $1
            """,
            [attempt.job.rawValue, state.rawValue, name, deadline, state.isTerminal ? now : nil, now])
        try await store.appendEvent(session, attempt.job, now: now, from: .running, to: state, attempt: attempt.number - 1, reason: reason, worker: owner)
    }

    func signalTarget(_ id: JobID) async throws -> SignalTarget? {
        guard let row = try await session.rows("SELECT state, waiting_for, attempts FROM jobs WHERE id = $1 FOR NO KEY UPDATE", [id.rawValue]).first
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
        try await store.appendEvent(session, id, now: now, from: .waiting, to: .pending, attempt: attempts, reason: reason)
    }

    func passedWaits(now: Int64) async throws -> [PassedWait] {
        try await session.rows(
            """
            SELECT id, attempts, waiting_for, wait_deadline FROM jobs
            WHERE state = 'waiting' AND wait_deadline < $1
            ORDER BY id
            FOR NO KEY UPDATE SKIP LOCKED
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
