import DurableQueueCore

extension SQLiteRows: StoreRows {
    func expiredLeases(now: Int64, deadOwners: [String]) async throws -> [RecoverableJob] {
        try onStore { store in
            var expired: [RecoverableJob] = []
            try store.connection.query(
                """
                SELECT id, attempts - coalesce(a.progressed_attempts, 0), max_attempts, cancel_requested, lease_owner, queue,
                       coalesce(o.throttle_interval_ms, 0), attempts, partition_key, kind, coalesce(a.lost_in_a_row, 0),
                       a.last_lost_attempt, \(SQLiteJobStore.attemptMadeProgress), group_id
                FROM \(SQLiteJobStore.jobsWithSideRows)
                WHERE state = 'running'
                  AND (lease_expires_at < ?1 OR lease_owner IN (SELECT value FROM json_each(?2)))
                ORDER BY id
                """, [now, SQLiteJobStore.jsonArray(deadOwners)]
            ) { row in
                let lease = ExpiredLease(
                    id: JobID(row.int64(0)), owner: row.optionalString(4), attempts: Int(row.int64(7)),
                    countedAttempts: Int(row.int64(1)), maxAttempts: row.optionalInt(2), cancelRequested: row.int64(3) != 0,
                    lost: LostAttempts(inARow: Int(row.int64(10)), lastLost: row.optionalInt(11)), madeProgress: row.int64(12) != 0)
                expired.append(
                    RecoverableJob(
                        lease: lease, queue: row.string(5), kind: row.string(9), throttleInterval: row.int64(6),
                        partitionKey: row.optionalString(8), group: row.optionalInt64(13).map { GroupID($0) }))
            }
            return expired
        }
    }

    /// A walk of the hand-offs under way in idx_job_wait_targets_active (its plan is checked), put
    /// in id order here.
    func passedHandOffDeadlines(now: Int64) async throws -> [RecoverableJob] {
        try onStore { store in
            try store.forgetEndedWaitTargets(before: now)
            var passed: [RecoverableJob] = []
            try store.connection.query(SQLiteJobStore.passedHandOffDeadlines, [now]) { row in
                let target = HandOffTarget(carrier: row.string(4), reference: row.string(8), deadline: row.optionalInt64(9))
                let lease = ExpiredLease(
                    id: JobID(row.int64(0)), owner: nil, attempts: Int(row.int64(7)), countedAttempts: Int(row.int64(1)),
                    maxAttempts: row.optionalInt(2), cancelRequested: row.int64(3) != 0, handOff: target)
                passed.append(
                    RecoverableJob(
                        lease: lease, queue: row.string(5), kind: row.string(11), throttleInterval: row.int64(6),
                        partitionKey: row.optionalString(10), group: row.optionalInt64(12).map { GroupID($0) }))
            }
            return passed.sorted { $0.lease.id.rawValue < $1.lease.id.rawValue }
        }
    }

    func recordRecovery(of job: RecoverableJob, _ verdict: ExpiredLease.Verdict, now: Int64) async throws {
        try onStore { store in
            try store.connection.execute(
                """
                UPDATE jobs SET state = ?2, error = ?3, lease_owner = NULL, lease_expires_at = NULL,
                                finished_at = ?4, updated_at = ?5
                WHERE id = ?1
                """,
                [job.lease.id.rawValue, verdict.state.rawValue, try JobCodec.encode(verdict.failure), verdict.state.isTerminal ? now : nil,
                 now])
            try store.recordLostAttempts(verdict.lost, of: job.lease.id.rawValue)
            if job.lease.handOff != nil { try store.endWaitTarget(of: job.lease.id.rawValue) }
            try store.appendEvent(
                job.lease.id, now: now, from: job.lease.handOff == nil ? .running : .handedOff, to: verdict.state,
                attempt: job.lease.attempts, reason: verdict.reason, worker: job.lease.owner)
        }
    }

    func recordEnd(queue: String, interval: Int64, key: String?, now: Int64) async throws {
        try onStore { try $0.recordEnd(queue: queue, interval: interval, key: key, now: now) }
    }

    /// Nothing: a SQLite file keeps no worker rows (its workers are the processes on this device).
    func forgetWorkers(silentSince cutoff: Int64) async throws {}

    func giveBack(_ attempt: AttemptID, owner: String, now: Int64, reason: String) async throws -> GivenBack? {
        try onStore { store in
            var row: (given: GivenBack, attempts: Int, eventCount: Int64, extras: JobExtras)?
            try store.connection.query(
                """
                UPDATE jobs SET state = CASE cancel_requested WHEN 1 THEN ?5 ELSE ?6 END,
                                attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
                                finished_at = CASE cancel_requested WHEN 1 THEN ?3 END, updated_at = ?3,
                                event_count = event_count + 1
                WHERE id = ?1 AND state = 'running' AND lease_owner = ?2 AND attempts = ?4
                RETURNING attempts, cancel_requested, queue, extras, event_count, partition_key, group_id
                """,
                [attempt.job.rawValue, owner, now, attempt.number, GiveBack.state(cancelRequested: true).rawValue,
                 GiveBack.state(cancelRequested: false).rawValue]
            ) { found in
                let given = GivenBack(
                    state: GiveBack.state(cancelRequested: found.int64(1) != 0), queue: found.string(2), throttleInterval: 0,
                    partitionKey: found.optionalString(5), group: found.optionalInt64(6).map { GroupID($0) })
                row = (given, Int(found.int64(0)), found.int64(4), JobExtras(rawValue: found.int64(3)))
            }
            guard var row else { return nil }
            // The interval, and what the attempt counted as progress, live in the job's side rows.
            row.given.throttleInterval = try store.claimExtras(of: attempt.job.rawValue, extras: row.extras.intersection(.options))
                .throttleInterval
            if row.extras.contains(.attemptState) {
                try store.takeBackProgress(of: attempt.job.rawValue, attempt: attempt.number)
            }
            try store.appendEvents([
                SQLiteJobStore.EventRow(
                    job: attempt.job, at: now, from: .running, to: row.given.state, attempt: row.attempts, reason: reason, worker: owner,
                    seq: row.eventCount)
            ])
            return row.given
        }
    }

    func giveBackHandOff(_ attempt: AttemptID, now: Int64, reason: String) async throws -> Bool {
        try onStore { store in
            var eventCount: Int64?
            try store.connection.query(
                """
                UPDATE jobs SET state = 'pending', run_at = ?3, updated_at = ?3, event_count = event_count + 1
                WHERE id = ?1 AND state = 'handed_off' AND attempts = ?2
                RETURNING event_count
                """, [attempt.job.rawValue, attempt.number, now]
            ) { row in eventCount = row.int64(0) }
            guard let eventCount else { return false }
            try store.countProgress(of: attempt.job.rawValue, attempt: attempt.number)
            try store.endWaitTarget(of: attempt.job.rawValue)
            try store.appendEvents([
                SQLiteJobStore.EventRow(
                    job: attempt.job, at: now, from: .handedOff, to: .pending, attempt: attempt.number, reason: reason, worker: nil,
                    seq: eventCount)
            ])
            return true
        }
    }
}
