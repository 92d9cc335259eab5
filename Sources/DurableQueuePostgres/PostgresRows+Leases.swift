import DurableQueue

extension PostgresRows: StoreRows {
    /// The rows are taken without waiting (`SKIP LOCKED`): one an ending is being recorded for is
    /// left for the next round.
    func expiredLeases(now: Int64, deadOwners: [String]) async throws -> [RecoverableJob] {
        try await session.rows(
            """
            SELECT id, attempts - progressed_attempts, max_attempts, cancel_requested, lease_owner, queue,
                   throttle_interval_ms, attempts, group_id, partition_key, kind, lost_in_a_row, last_lost_attempt,
                   (checkpoint_attempt IS NOT DISTINCT FROM attempts
                    OR EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = jobs.id AND s.attempt = jobs.attempts))::int
            FROM jobs
            WHERE state = 'running' AND (lease_expires_at < $1 OR lease_owner = ANY($2::text[]))
            ORDER BY id
            FOR NO KEY UPDATE SKIP LOCKED
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

    func passedHandOffDeadlines(now: Int64) async throws -> [RecoverableJob] {
        try await session.rows(
            """
            SELECT id, attempts - progressed_attempts, max_attempts, cancel_requested, handed_off_to, queue,
                   throttle_interval_ms, attempts, group_id, handoff_reference, handoff_deadline, partition_key, kind
            FROM jobs
            WHERE state = 'handed_off' AND handoff_deadline < $1
            ORDER BY id
            FOR NO KEY UPDATE SKIP LOCKED
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
                            finished_at = $4, updated_at = $5, lost_in_a_row = $6, last_lost_attempt = $7
            WHERE id = $1
            """,
            [job.lease.id.rawValue, verdict.state.rawValue, try JobCodec.encode(verdict.failure), verdict.state.isTerminal ? now : nil, now,
             verdict.lost.inARow, verdict.lost.lastLost])
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
                                progressed_attempts = progressed_attempts
                                    - CASE WHEN checkpoint_attempt = attempts THEN 1 ELSE 0 END,
                                checkpoint_attempt = CASE WHEN checkpoint_attempt = attempts THEN NULL
                                                          ELSE checkpoint_attempt END,
                                finished_at = CASE cancel_requested WHEN 1 THEN $3::bigint END, updated_at = $3
                WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND attempts = $4
                RETURNING attempts, cancel_requested, queue, throttle_interval_ms, group_id, partition_key
                """,
                [attempt.job.rawValue, owner, now, attempt.number, GiveBack.state(cancelRequested: true).rawValue,
                 GiveBack.state(cancelRequested: false).rawValue]
            ).first
        else { return nil }
        let given = GivenBack(
            state: GiveBack.state(cancelRequested: try row.bool(1)), queue: try row.string(2), throttleInterval: try row.int64(3),
            partitionKey: try row.optionalString(5), group: try row.optionalInt64(4).map { GroupID($0) })
        try await store.appendEvent(
            session, attempt.job, now: now, from: .running, to: given.state, attempt: try row.int(0), reason: reason, worker: owner)
        return given
    }

    func giveBackHandOff(_ attempt: AttemptID, now: Int64, reason: String) async throws -> Bool {
        let changed = try await session.execute(
            """
            UPDATE jobs SET state = 'pending', run_at = $3,
                            progressed_attempts = progressed_attempts
                                + CASE WHEN checkpoint_attempt IS DISTINCT FROM attempts THEN 1 ELSE 0 END,
                            checkpoint_attempt = attempts, updated_at = $3
            WHERE id = $1 AND state = 'handed_off' AND attempts = $2
            """, [attempt.job.rawValue, attempt.number, now])
        guard changed == 1 else { return false }
        try await store.appendEvent(session, attempt.job, now: now, from: .handedOff, to: .pending, attempt: attempt.number, reason: reason)
        return true
    }
}
