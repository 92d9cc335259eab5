import DurableQueue

extension PostgresRows: HandOffRows {
    func handOff(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, to target: HandOffTarget,
        now: Int64, reason: String
    ) async throws {
        try await session.execute(
            """
            UPDATE jobs SET state = $2, lease_owner = NULL, lease_expires_at = NULL, finished_at = $3, updated_at = $4
            WHERE id = $1
            """,
            [attempt.job.rawValue, state.rawValue, state.isTerminal ? now : nil, now])
        try await store.recordHandOffTarget(session, of: attempt.job.rawValue, target, active: state == .handedOff)
        try await store.appendEvent(session, attempt.job, now: now, from: .running, to: state, attempt: attempt.number, reason: reason, worker: owner)
    }

    func recordHandOffEnding(
        _ ending: ResolvedEnding, of attempt: AttemptID, reporter: String, row: (row: EndingRow, historyCount: Int64), now: Int64
    ) async throws {
        let uncounted = ending.countsAttempt ? 0 : 1
        try await session.execute(
            """
            UPDATE jobs SET state = $2, output = coalesce($3::jsonb, output), error = coalesce($4::jsonb, error),
                            run_at = coalesce($5, run_at), finished_at = $6, updated_at = $7, attempts = attempts - $8
            WHERE id = $1
            """,
            [attempt.job.rawValue, ending.state.rawValue, ending.output, try ending.failure.map(JobCodec.encode), ending.runAt,
             ending.state.isTerminal ? now : nil, now, uncounted])
        if uncounted == 1 { try await store.takeBackProgress(session, of: attempt.job.rawValue, attempt: attempt.number) }
        try await store.endWaitTarget(session, of: attempt.job.rawValue)
        try await store.appendEvent(
            session, attempt.job, now: now, from: .handedOff, to: ending.state, attempt: row.row.attempts - uncounted,
            reason: ending.reason, worker: reporter)
    }

    func noteUnchanged(_ row: (row: EndingRow, historyCount: Int64), attempt: Int, reporter: String, now: Int64, reason: String)
        async throws
    {
        try await store.appendEvent(session, row.row.id, now: now, from: row.row.state, to: row.row.state, attempt: attempt, reason: reason, worker: reporter)
    }
}
