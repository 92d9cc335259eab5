import DurableQueue

extension PostgresJobStore {
    /// Records `steps` (group commit of the steps of attempts running at once) in one statement,
    /// which locks the rows of their jobs and checks each step's fence; see ``RecordSteps``.
    package func recordSteps(_ steps: [PendingStep]) async throws -> [Result<Bool, DurableQueueError>] {
        let rows = try await write("record \(steps.count) step(s)", notify: false, transaction: false) { session in
            try await session.rows(
                RecordSteps.self,
                [
                    steps.map(\.attempt.job.rawValue), steps.map(\.step.name), steps.map { Int64($0.attempt.number) },
                    steps.map(\.owner), steps.map(\.step.output), steps.map(\.step.recordedAt),
                    steps.map { StepRule.reason(recorded: $0.step.name) },
                ])
        }
        var results = [Result<Bool, DurableQueueError>](repeating: .success(false), count: steps.count)
        for row in rows {
            let (index, fenced, inserted) = (try row.int(0) - 1, try row.bool(1), try row.bool(2))
            guard fenced else { continue }
            let step = steps[index]
            results[index] =
                inserted
                ? .success(true)
                : .failure(.invalidArgument("step", "job \(step.attempt.job) has a step named '\(step.step.name)' already"))
        }
        return results
    }

    /// Records the steps `$1` … `$7` (job, name, attempt, owner, output, time, history reason; one
    /// array each): each whose job's row (locked, in id order) shows its attempt running under its
    /// owner is inserted with its history row, unless the job has a step of that name already.
    /// Returns, per step in order, whether it passed the fence and whether it was inserted.
    private enum RecordSteps: PreparedSQL {
        static let name = "durablequeue_record_steps"
        static let sql = """
            WITH step AS (
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::text[])
                    WITH ORDINALITY AS s(job_id, name, attempt, owner, output, recorded_at, reason, position)
            ),
            fenced AS (
                SELECT s.* FROM step AS s JOIN jobs AS j ON j.id = s.job_id
                WHERE j.state = 'running' AND j.lease_owner = s.owner AND j.attempts = s.attempt
                ORDER BY j.id
                FOR NO KEY UPDATE OF j
            ),
            inserted AS (
                INSERT INTO job_steps (job_id, name, attempt, output, recorded_at)
                SELECT job_id, name, attempt, output::jsonb, recorded_at FROM fenced ORDER BY position
                ON CONFLICT (job_id, name) DO NOTHING
                RETURNING job_id, name
            ),
            events AS (
                INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
                SELECT f.job_id, f.recorded_at, 'running', 'running', f.attempt, f.reason, f.owner
                FROM fenced AS f JOIN inserted AS i ON i.job_id = f.job_id AND i.name = f.name
                ORDER BY f.position
            )
            SELECT s.position, (f.position IS NOT NULL)::int, (i.job_id IS NOT NULL)::int
            FROM step AS s
            LEFT JOIN fenced AS f ON f.position = s.position
            LEFT JOIN inserted AS i ON i.job_id = f.job_id AND i.name = f.name
            ORDER BY s.position
            """
    }

    /// Records `step` of `attempt` with its history row in `session`'s transaction, if the job's row
    /// (locked) shows `attempt` running under `owner`; false (nothing written) otherwise.
    ///
    /// - Throws: `invalidArgument` when the job has a step of that name already.
    func recordStep(_ session: PostgresSession, _ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool {
        let rows = try await session.rows(
            "SELECT state, lease_owner, attempts FROM jobs WHERE id = $1 FOR NO KEY UPDATE", [attempt.job.rawValue])
        guard let row = rows.first, try JobState(stored: row.string(0)) == .running, try row.optionalString(1) == owner,
              try row.int(2) == attempt.number
        else { return false }
        var step = step
        step.recordedAt = stamp(step.recordedAt)  // the job's row is locked
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
