import DurableQueueCore

extension SQLiteRows: HandOffRows {
    func handOff(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, to target: HandOffTarget,
        now: Int64, reason: String
    ) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE jobs SET state = ?2, lease_owner = NULL, lease_expires_at = NULL, finished_at = ?3, updated_at = ?4,
                                event_count = event_count + 1, extras = extras | 4
                WHERE id = ?1
                """,
                [attempt.job.rawValue, state.rawValue, state.isTerminal ? now : nil, now])
            try store.connection.execute(
                """
                INSERT INTO job_wait_targets (job_id, active, due_at, handoff_deadline, handed_off_to, handoff_reference)
                VALUES (?1, ?2, ?3, ?3, ?4, ?5)
                ON CONFLICT (job_id) DO UPDATE SET active = excluded.active, due_at = excluded.due_at,
                                                   handoff_deadline = excluded.handoff_deadline,
                                                   handed_off_to = excluded.handed_off_to,
                                                   handoff_reference = excluded.handoff_reference
                """,
                [attempt.job.rawValue, state == .handedOff ? state.rawValue : nil, target.deadline, target.carrier, target.reference])
            try store.appendEvents([
                SQLiteJobStore.EventRow(
                    job: attempt.job, at: now, from: .running, to: state, attempt: attempt.number, reason: reason, worker: owner,
                    seq: row.historyCount + 1)
            ])
        }
    }

    func recordHandOffEnding(
        _ ending: ResolvedEnding, of attempt: AttemptID, reporter: String, row: (row: EndingRow, historyCount: Int64), now: Int64
    ) async throws {
        try onStore { store in
            let (_, event) = try store.record(
                ending, job: attempt.job, worker: reporter, row: row.row, eventCount: row.historyCount, now: now, from: .handedOff)
            try store.endWaitTarget(of: attempt.job.rawValue)
            try store.appendEvents([event])
        }
    }

    func noteUnchanged(_ row: (row: EndingRow, historyCount: Int64), attempt: Int, reporter: String, now: Int64, reason: String)
        async throws
    {
        try onStore { store in
            try store.appendEvents([
                SQLiteJobStore.EventRow(
                    job: row.row.id, at: now, from: row.row.state, to: row.row.state, attempt: attempt, reason: reason, worker: reporter)
            ])
        }
    }
}
