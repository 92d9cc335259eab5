import DurableQueue

extension PostgresRows: StoreRows {
    /// The rows are taken without waiting (`SKIP LOCKED`): one an ending is being recorded for is
    /// left for the next round.
    func expiredLeases(now: Int64, deadOwners: [String]) async throws -> [RecoverableJob] {
        try await session.rows(
            """
            SELECT id, attempts - coalesce(a.progressed_attempts, 0), max_attempts, cancel_requested, lease_owner, queue,
                   coalesce(o.throttle_interval_ms, 0), attempts, group_id, partition_key, kind, coalesce(a.lost_in_a_row, 0),
                   a.last_lost_attempt,
                   (a.checkpoint_attempt IS NOT DISTINCT FROM attempts
                    OR EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = jobs.id AND s.attempt = jobs.attempts))::int
            FROM jobs \(PostgresJobStore.sideRows(of: "jobs"))
            WHERE state = 'running' AND (lease_expires_at < $1 OR lease_owner = ANY($2::text[]))
            ORDER BY id
            FOR NO KEY UPDATE OF jobs SKIP LOCKED
            """, [now, deadOwners]
        ).map { row in
            let lease = ExpiredLease(
                id: JobID(try row.int64(0)), owner: try row.optionalString(4), attempts: try row.int(7),
                countedAttempts: try row.int(1), maxAttempts: try row.optionalInt(2), cancelRequested: try row.bool(3),
                lost: LostAttempts(inARow: try row.int(11), lastLost: try row.optionalInt(12)), madeProgress: try row.bool(13))
            return RecoverableJob(
                lease: lease, queue: try row.string(5), kind: try row.string(10), throttleInterval: try row.int64(6),
                partitionKey: try row.optionalString(9), group: try row.optionalInt64(8).map { GroupID($0) })
        }
    }

    /// A walk of the hand-offs under way in idx_job_wait_targets_active.
    func passedHandOffDeadlines(now: Int64) async throws -> [RecoverableJob] {
        try await store.forgetEndedWaitTargets(session, before: now)
        return try await session.rows(
            """
            SELECT id, attempts - coalesce(a.progressed_attempts, 0), max_attempts, cancel_requested, w.handed_off_to, queue,
                   coalesce(o.throttle_interval_ms, 0), attempts, group_id, w.handoff_reference, w.handoff_deadline, partition_key,
                   kind
            FROM job_wait_targets AS w JOIN jobs ON jobs.id = w.job_id \(PostgresJobStore.sideRows(of: "jobs"))
            WHERE w.active = 'handed_off' AND w.due_at < $1 AND jobs.state = 'handed_off'
            ORDER BY id
            FOR NO KEY UPDATE OF jobs SKIP LOCKED
            """, [now]
        ).map { row in
            let target = HandOffTarget(carrier: try row.string(4), reference: try row.string(9), deadline: try row.optionalInt64(10))
            let lease = ExpiredLease(
                id: JobID(try row.int64(0)), owner: nil, attempts: try row.int(7), countedAttempts: try row.int(1),
                maxAttempts: try row.optionalInt(2), cancelRequested: try row.bool(3), handOff: target)
            return RecoverableJob(
                lease: lease, queue: try row.string(5), kind: try row.string(12), throttleInterval: try row.int64(6),
                partitionKey: try row.optionalString(11), group: try row.optionalInt64(8).map { GroupID($0) })
        }
    }

    func recordRecovery(of job: RecoverableJob, _ verdict: ExpiredLease.Verdict, now: Int64) async throws {
        try await session.execute(
            """
            UPDATE jobs SET state = $2, error = $3::jsonb, lease_owner = NULL, lease_expires_at = NULL,
                            finished_at = $4, updated_at = $5
            WHERE id = $1
            """,
            [job.lease.id.rawValue, verdict.state.rawValue, try JobCodec.encode(verdict.failure), verdict.state.isTerminal ? now : nil, now])
        try await store.recordLostAttempts(session, verdict.lost, of: job.lease.id.rawValue)
        if job.lease.handOff != nil { try await store.endWaitTarget(session, of: job.lease.id.rawValue) }
        try await store.appendEvent(
            session, job.lease.id, now: now, from: job.lease.handOff == nil ? .running : .handedOff, to: verdict.state,
            attempt: job.lease.attempts, reason: verdict.reason, worker: job.lease.owner)
    }

    func recordEnd(queue: String, interval: Int64, key: String?, now: Int64) async throws {
        try await store.recordEnd(session, queue: queue, interval: interval, key: key, now: now)
    }

    func forgetWorkers(silentSince cutoff: Int64) async throws {
        try await session.execute("DELETE FROM workers WHERE alive_until < $1", [cutoff])
    }

    func giveBack(_ attempt: AttemptID, owner: String, now: Int64, reason: String) async throws -> GivenBack? {
        guard
            let row = try await session.rows(
                """
                UPDATE jobs SET state = CASE cancel_requested WHEN 1 THEN $5 ELSE $6 END,
                                attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
                                finished_at = CASE cancel_requested WHEN 1 THEN $3::bigint END, updated_at = $3
                WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND attempts = $4
                RETURNING attempts, cancel_requested, queue, \(PostgresJobStore.throttleInterval(of: "jobs")), group_id, partition_key,
                          extras
                """,
                [attempt.job.rawValue, owner, now, attempt.number, GiveBack.state(cancelRequested: true).rawValue,
                 GiveBack.state(cancelRequested: false).rawValue]
            ).first
        else { return nil }
        let given = GivenBack(
            state: GiveBack.state(cancelRequested: try row.bool(1)), queue: try row.string(2), throttleInterval: try row.int64(3),
            partitionKey: try row.optionalString(5), group: try row.optionalInt64(4).map { GroupID($0) })
        // What the attempt counted as progress lives in the job's attempt state, if it has one.
        if try JobExtras(rawValue: row.int64(6)).contains(.attemptState) {
            try await store.takeBackProgress(session, of: attempt.job.rawValue, attempt: attempt.number)
        }
        try await store.appendEvent(
            session, attempt.job, now: now, from: .running, to: given.state, attempt: try row.int(0), reason: reason, worker: owner)
        return given
    }

    func giveBackHandOff(_ attempt: AttemptID, now: Int64, reason: String) async throws -> Bool {
        let changed = try await session.execute(
            """
            UPDATE jobs SET state = 'pending', run_at = $3, updated_at = $3
            WHERE id = $1 AND state = 'handed_off' AND attempts = $2
            """, [attempt.job.rawValue, attempt.number, now])
        guard changed == 1 else { return false }
        try await store.countProgress(session, of: attempt.job.rawValue, attempt: attempt.number)
        try await store.endWaitTarget(session, of: attempt.job.rawValue)
        try await store.appendEvent(session, attempt.job, now: now, from: .handedOff, to: .pending, attempt: attempt.number, reason: reason)
        return true
    }
}
