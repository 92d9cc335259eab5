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
        try await write("cancel jobs (\(selector))") { [self] session in
            let (sql, values): (String, [(any PostgresValue)?]) =
            switch selector {
            case .tag(let tag):
                ("SELECT job_id FROM job_tags WHERE tag = $1 ORDER BY job_id", [tag])
            case .queue(let queue):
                ("SELECT id FROM jobs WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running') ORDER BY id", [queue])
            case .all:
                ("SELECT id FROM jobs WHERE state IN ('scheduled', 'pending', 'blocked', 'running') ORDER BY id", [])
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

    /// Called in the transaction that moved job `id` to a terminal state: its cache entry records
    /// the outcome, and its group goes on.
    func jobEnded(_ session: PostgresSession, _ id: JobID, now: Int64) async throws {
        let group = try await session.int64("SELECT group_id FROM jobs WHERE id = $1", [id.rawValue])
        try await jobEnded(session, id, group: group.map { GroupID($0) }, now: now)
    }

    /// ``jobEnded(_:_:now:)`` for a caller that has read the job's group already, and may know that
    /// no cache entry exists at all (`cacheInUse` false).
    func jobEnded(_ session: PostgresSession, _ id: JobID, group: GroupID?, cacheInUse: Bool = true, now: Int64) async throws {
        if cacheInUse { try await recordCacheOutcome(session, ofJob: id, now: now) }
        if let group { try await advanceGroup(session, group, now: now) }
    }

    /// Puts a `failed` or `cancelled` job back to `pending` with fresh attempts, its checkpoint kept.
    package func retry(_ id: JobID, now: Int64) async throws {
        try await write("retry job \(id)") { [self] session in
            guard
                let row = try await session.rows(
                    "SELECT state, attempts, group_id, unique_key FROM jobs WHERE id = $1 FOR UPDATE", [id.rawValue]
                ).first
            else { throw DurableQueueError.jobNotFound(id) }
            let state = try JobState(stored: row.string(0))
            let group = try row.optionalInt64(2).map { GroupID($0) }
            let key = try row.optionalString(3)
            var holder: Int64?
            if let key {
                holder = try await session.int64(
                    "SELECT id FROM jobs WHERE unique_key = $1 AND id <> $2 AND \(Self.holdsUniqueKey) LIMIT 1", [key, id.rawValue])
            }
            try ManualRetry.check(id, state: state, group: group, uniqueKey: key, uniqueKeyHolder: holder.map { JobID($0) })
            try await session.execute(
                """
                UPDATE jobs SET state = 'pending', attempts = 0, progressed_attempts = 0, checkpoint_attempt = NULL,
                                cancel_requested = 0, run_at = $2, lease_owner = NULL,
                                lease_expires_at = NULL, finished_at = NULL, updated_at = $2
                WHERE id = $1
                """, [id.rawValue, now])
            try await appendEvent(
                session, id, now: now, from: state, to: .pending, attempt: 0, reason: ManualRetry.reason(afterAttempts: try row.int(1)))
        }
    }

    /// Deletes up to `limit` jobs (and outermost groups) that finished in `state` before the cutoff.
    package func prune(state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int {
        guard state.isTerminal else {
            throw DurableQueueError.invalidArgument("state", "only finished jobs can be pruned, not '\(state.rawValue)' ones")
        }
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        return try await write("prune \(state.rawValue) jobs", notify: false) { session in
            let jobs = try await session.execute(
                """
                DELETE FROM jobs WHERE id IN (
                    SELECT id FROM jobs
                    WHERE state = $1 AND finished_at < $2
                      AND NOT EXISTS (SELECT 1 FROM groups AS g WHERE g.id = jobs.group_id AND g.state IN ('blocked', 'running'))
                    ORDER BY finished_at LIMIT $3
                    FOR UPDATE SKIP LOCKED)
                """, [state.rawValue, finishedBefore, limit])
            let groups = try await session.execute(
                """
                DELETE FROM groups WHERE id IN (SELECT id FROM groups
                                                WHERE parent_id IS NULL AND state = $1 AND finished_at < $2
                                                ORDER BY finished_at LIMIT $3
                                                FOR UPDATE SKIP LOCKED)
                """, [state.rawValue, finishedBefore, limit])
            return jobs + groups
        }
    }
}
