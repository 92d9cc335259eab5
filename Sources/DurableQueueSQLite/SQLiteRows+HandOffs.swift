import DurableQueueCore

extension SQLiteRows: HandOffRows {
    func handOff(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, to target: HandOffTarget,
        now: Int64, reason: String
    ) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE jobs SET state = ?2, lease_owner = NULL, lease_expires_at = NULL, handed_off_to = ?3,
                                handoff_reference = ?4, handoff_deadline = ?5, finished_at = ?6, updated_at = ?7,
                                event_count = event_count + 1
                WHERE id = ?1
                """,
                [attempt.job.rawValue, state.rawValue, target.carrier, target.reference, target.deadline, state.isTerminal ? now : nil, now])
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
