import DurableQueueCore

extension SQLiteJobStore {
    /// Records `steps` in one transaction (group commit of the steps of attempts running at once),
    /// each stamped at the transaction's time (``TransactionClock``) unless its own is later.
    package func recordSteps(_ steps: [PendingStep]) throws -> [Result<Bool, DurableQueueError>] {
        try write("record \(steps.count) step(s)") {
            try steps.map { pending in
                var step = pending.step
                step.recordedAt = transactionClock.stamp(step.recordedAt)
                do {
                    return .success(try recordStepInTransaction(step, attempt: pending.attempt, owner: pending.owner))
                } catch let error as DurableQueueError where error.code == .invalidArgument {
                    return .failure(error)  // refused before any write: the others go on
                }
            }
        }
    }

    /// Records `step` of `attempt` with its history row, inside the open transaction, if the job's
    /// row shows `attempt` running under `owner`; false (nothing written) otherwise.
    ///
    /// The fence is the update that counts the history row (``stepFence``), then the count is read:
    /// together a tenth fewer instructions than a read of the row before the update, and a half
    /// fewer than the update returning the count (SQLite's RETURNING builds a table of the rows).
    ///
    /// - Throws: `invalidArgument` when the job has a step of that name already (nothing is left written).
    func recordStepInTransaction(_ step: StepRecord, attempt: AttemptID, owner: String) throws -> Bool {
        try connection.execute(Self.stepFence, [attempt.job.rawValue, owner, attempt.number])
        guard try connection.changes == 1,
            let eventCount = try connection.scalarInt64("SELECT event_count FROM jobs WHERE id = ?", [attempt.job.rawValue])
        else { return false }
        try connection.execute(
            """
            INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (job_id, name) DO NOTHING
            """, [attempt.job.rawValue, step.name, attempt.number, step.output, step.recordedAt])
        guard try connection.changes == 1 else {
            // The steps of other attempts in this transaction commit: take the count back.
            try connection.execute("UPDATE jobs SET event_count = event_count - 1 WHERE id = ?", [attempt.job.rawValue])
            throw DurableQueueError.invalidArgument("step", "job \(attempt.job) has a step named '\(step.name)' already")
        }
        try appendEvents([
            EventRow(
                job: attempt.job, at: step.recordedAt, from: .running, to: .running, attempt: attempt.number,
                reason: StepRule.reason(recorded: step.name), worker: owner, seq: eventCount)
        ])
        return true
    }

    /// Counts a history row for job `?1` if its row shows attempt `?3` running under `?2`: no
    /// change when the attempt is no longer the job's current one.
    static let stepFence = """
        UPDATE jobs SET event_count = event_count + 1
        WHERE id = ?1 AND state = 'running' AND lease_owner = ?2 AND attempts = ?3
        """

    /// The steps job `id` recorded, oldest first.
    package func steps(of id: JobID) throws -> [StepRecord] {
        try read("read the steps of job \(id)") {
            var steps: [StepRecord] = []
            try connection.query(
                "SELECT name, attempt, output, recorded_at FROM job_steps WHERE job_id = ? ORDER BY recorded_at, name", [id.rawValue]
            ) { row in
                steps.append(
                    StepRecord(job: id, name: row.string(0), attempt: Int(row.int64(1)), output: row.string(2), recordedAt: row.int64(3)))
            }
            return steps
        }
    }
}
