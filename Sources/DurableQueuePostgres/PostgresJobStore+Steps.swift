import DurableQueue

extension PostgresJobStore {
    /// Records `step` of `attempt` in a transaction of its own; see ``recordStep(_:_:attempt:owner:)``.
    package func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool {
        try await write("record step '\(step.name)' of job \(attempt.job)") { [self] session in
            try await recordStep(session, step, attempt: attempt, owner: owner)
        }
    }

    /// Records `step` of `attempt` with its history row in `session`'s transaction, if the job's row
    /// (locked) shows `attempt` running under `owner`; false (nothing written) otherwise.
    ///
    /// - Throws: `invalidArgument` when the job has a step of that name already.
    func recordStep(_ session: PostgresSession, _ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool {
        let rows = try await session.rows(
            "SELECT state, lease_owner, attempts FROM jobs WHERE id = $1 FOR UPDATE", [attempt.job.rawValue])
        guard let row = rows.first, try JobState(stored: row.string(0)) == .running, try row.optionalString(1) == owner,
              try row.int(2) == attempt.number
        else { return false }
        let inserted = try await session.execute(
            """
            INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES ($1, $2, $3, $4::jsonb, $5)
            ON CONFLICT (job_id, name) DO NOTHING
            """, [attempt.job.rawValue, step.name, attempt.number, step.output, step.recordedAt])
        guard inserted == 1 else {
            throw DurableQueueError.invalidArgument("step", "job \(attempt.job) has a step named '\(step.name)' already")
        }
        try await appendEvent(
            session, attempt.job, now: step.recordedAt, from: .running, to: .running, attempt: attempt.number,
            reason: StepRule.reason(recorded: step.name), worker: owner)
        return true
    }

    /// The steps job `id` recorded, oldest first.
    package func steps(of id: JobID) async throws -> [StepRecord] {
        try await read("read the steps of job \(id)") { session in
            try await session.rows(
                "SELECT name, attempt, output::text, recorded_at FROM job_steps WHERE job_id = $1 ORDER BY recorded_at, name", [id.rawValue]
            ).map { row in
                StepRecord(job: id, name: try row.string(0), attempt: try row.int(1), output: try row.string(2), recordedAt: try row.int64(3))
            }
        }
    }
}
