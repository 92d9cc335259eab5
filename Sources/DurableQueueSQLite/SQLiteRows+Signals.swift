import DurableQueueCore

extension SQLiteRows: SignalRows {
    func endingRow(_ id: JobID) async throws -> (row: EndingRow, historyCount: Int64)? {
        try onStore { store in try store.endingRows([id]).first.map { ($0.row, $0.eventCount) } }
    }

    func signalPayload(_ id: JobID, name: String) async throws -> String? {
        try onStore { store in
            var sent: String?
            try store.connection.query("SELECT payload FROM job_signals WHERE job_id = ? AND name = ?", [id.rawValue, name]) {
                sent = $0.string(0)
            }
            return sent
        }
    }

    func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool {
        try onStore { try $0.recordStepInTransaction(step, attempt: attempt, owner: owner) }
    }

    func wait(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, for name: String,
        deadline: Int64?, now: Int64, reason: String
    ) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE jobs SET state = ?2, lease_owner = NULL, lease_expires_at = NULL, attempts = attempts - 1,
                                finished_at = ?3, updated_at = ?4, event_count = event_count + 1, extras = extras | 4
                WHERE id = ?1
                """,
                [attempt.job.rawValue, state.rawValue, state.isTerminal ? now : nil, now])
            try store.connection.execute(
                """
                INSERT INTO job_wait_targets (job_id, active, due_at, wait_deadline, waiting_for) VALUES (?1, ?2, ?3, ?3, ?4)
                ON CONFLICT (job_id) DO UPDATE SET active = excluded.active, due_at = excluded.due_at,
                                                   wait_deadline = excluded.wait_deadline, waiting_for = excluded.waiting_for
                """, [attempt.job.rawValue, state == .waiting ? state.rawValue : nil, deadline, name])
            try store.takeBackProgress(of: attempt.job.rawValue, attempt: attempt.number)
            try store.appendEvents([
                SQLiteJobStore.EventRow(
                    job: attempt.job, at: now, from: .running, to: state, attempt: attempt.number - 1, reason: reason, worker: owner,
                    seq: row.historyCount + 1)
            ])
        }
    }

    func signalTarget(_ id: JobID) async throws -> SignalTarget? {
        try onStore { store in
            var found: SignalTarget?
            try store.connection.query(
                """
                SELECT j.state, w.waiting_for, j.attempts FROM jobs AS j LEFT JOIN job_wait_targets AS w ON w.job_id = j.id
                WHERE j.id = ?
                """, [id.rawValue]
            ) { row in
                found = SignalTarget(state: try JobState(stored: row.string(0)), waitingFor: row.optionalString(1), attempts: Int(row.int64(2)))
            }
            return found
        }
    }

    func keepSignal(_ id: JobID, name: String, payload: String, now: Int64) async throws -> Bool {
        try onStore { store in
            try store.connection.execute(
                "INSERT INTO job_signals (job_id, name, payload, sent_at) VALUES (?, ?, ?, ?) ON CONFLICT (job_id, name) DO NOTHING",
                [id.rawValue, name, payload, now])
            return try store.connection.changes == 1
        }
    }

    func wake(_ id: JobID, attempts: Int, now: Int64, reason: String) async throws {
        try onStore { store in
            try store.connection.execute("UPDATE jobs SET state = 'pending', run_at = ?2, updated_at = ?2 WHERE id = ?1", [id.rawValue, now])
            try store.endWaitTarget(of: id.rawValue)
            try store.appendEvent(id, now: now, from: .waiting, to: .pending, attempt: attempts, reason: reason)
        }
    }

    /// A walk of the waits under way in idx_job_wait_targets_active (its plan is checked), put in
    /// id order here.
    func passedWaits(now: Int64) async throws -> [PassedWait] {
        try onStore { store in
            try store.forgetEndedWaitTargets(before: now)
            var passed: [PassedWait] = []
            try store.connection.query(SQLiteJobStore.passedWaits, [now]) { row in
                passed.append(PassedWait(job: JobID(row.int64(0)), attempts: Int(row.int64(1)), name: row.string(2), deadline: row.int64(3)))
            }
            return passed.sorted { $0.job.rawValue < $1.job.rawValue }
        }
    }

    func recordTimeout(of wait: PassedWait, attempt: Int, output: String, now: Int64) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (job_id, name) DO NOTHING
                """, [wait.job.rawValue, SignalRule.stepName(wait.name), attempt, output, now])
        }
    }
}
