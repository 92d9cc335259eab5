import DurableQueue

extension PostgresJobStore {
    /// Cancels job `id`: a waiting job at once, a running one through its durable cancel flag.
    package func cancel(_ id: JobID, now: Int64) async throws -> CancelOutcome {
        try await write("cancel job \(id)") { [self] session in
            try await requestCancel(session, id, now: now, reason: "cancel requested")
        }
    }

    /// Cancels every unfinished job the selector matches, in one transaction.
    package func cancel(_ selector: CancelSelector, now: Int64) async throws -> [JobID: CancelOutcome] {
        try await write("cancel jobs (\(selector))", now: now) { [self] session, now in
            let (sql, values): (String, [(any PostgresValue)?]) =
            switch selector {
            case .tag(let tag):
                ("SELECT job_id FROM job_tags WHERE tag = $1 ORDER BY job_id", [tag])
            case .queue(let queue):
                ("SELECT id FROM jobs WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting') ORDER BY id", [queue])
            case .all:
                ("SELECT id FROM jobs WHERE state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting') ORDER BY id", [])
            }
            var outcomes: [JobID: CancelOutcome] = [:]
            for row in try await session.rows(sql, values) {
                let id = JobID(try row.int64(0))
                let outcome = try await requestCancel(session, id, now: now, reason: "cancel requested")
                if case .alreadyFinished = outcome { continue }
                outcomes[id] = outcome
            }
            return outcomes
        }
    }

    /// Sets the cancel flag of job `id` and cancels it at once unless it is running; inside the
    /// caller's transaction, with the job's row locked.
    func requestCancel(_ session: PostgresSession, _ id: JobID, now: Int64, reason: String) async throws -> CancelOutcome {
        guard let (state, attempts, cancelRequested) = try await stateRow(session, id, lock: true) else {
            throw DurableQueueError.jobNotFound(id)
        }
        let now = stamp(now)  // the job's row is locked
        let decision = CancelRequest.decide(state: state, cancelRequested: cancelRequested)
        switch decision.change {
        case .none:
            break
        case .flag:
            try await session.execute("UPDATE jobs SET cancel_requested = 1, updated_at = $1 WHERE id = $2", [now, id.rawValue])
            try await appendEvent(session, id, now: now, from: .running, to: .running, attempt: attempts, reason: reason)
        case .cancel:
            try await session.execute(
                "UPDATE jobs SET state = 'cancelled', cancel_requested = 1, finished_at = $1, updated_at = $1 WHERE id = $2",
                [now, id.rawValue])
            try await appendEvent(session, id, now: now, from: state, to: .cancelled, attempt: attempts, reason: reason)
            try await jobEnded(session, id, now: now)
        }
        return decision.outcome
    }

    /// Job `id`'s state, attempt count and cancel flag, or nil if there is no such job; `lock` holds
    /// its row until the transaction ends, so that what is decided from it stays true.
    func stateRow(_ session: PostgresSession, _ id: JobID, lock: Bool) async throws -> (state: JobState, attempts: Int, cancel: Bool)? {
        guard
            let row = try await session.rows(
                "SELECT state, attempts, cancel_requested FROM jobs WHERE id = $1" + (lock ? " FOR UPDATE" : ""), [id.rawValue]
            ).first
        else { return nil }
        return (try JobState(stored: row.string(0)), try row.int(1), try row.bool(2))
    }
}
