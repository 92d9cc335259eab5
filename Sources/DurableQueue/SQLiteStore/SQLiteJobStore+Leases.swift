extension SQLiteJobStore {
    /// The workers holding running jobs, each once.
    package func leaseOwners() throws -> [String] {
        try read("list the workers running jobs") {
            var owners: [String] = []
            try connection.query(
                "SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL"
            ) { owners.append($0.string(0)) }
            return owners
        }
    }

    /// Extends the leases of `attempts`, which `owner` runs, to `expiresAt` (a heartbeat).
    ///
    /// - Returns: The attempts `owner` still holds, with their cancel flags: an attempt missing from
    ///   the list lost its lease (the job was recovered, perhaps run again) and must stop.
    package func renewLeases(_ attempts: [AttemptID], owner: String, expiresAt: Int64) throws -> [HeldLease] {
        try write("renew the leases of worker '\(owner)'") {
            var held: [HeldLease] = []
            for attempt in attempts {
                try connection.query(
                    """
                    UPDATE jobs SET lease_expires_at = ?4
                    WHERE id = ?1 AND state = 'running' AND lease_owner = ?2 AND attempts = ?3
                    RETURNING cancel_requested
                    """, [attempt.job.rawValue, owner, attempt.number, expiresAt]
                ) { row in held.append(HeldLease(attempt: attempt, cancelRequested: row.int64(0) != 0)) }
            }
            return held
        }
    }

    /// Returns running jobs whose lease expired before `now` (their worker died), or whose worker is
    /// one of `deadOwners`, and handed-off jobs whose hand-off passed its deadline, to `pending`, or
    /// to `cancelled` if a cancel was requested, or to `failed` if no attempt is left.
    ///
    /// The interrupted attempt counts and is recorded in the history; a job whose worker stopped
    /// during `lostAttemptLimit` attempts in a row that made no progress fails as a poison job
    /// (``LostAttempts``). Each job's current state and flag are read in the same transaction, so a
    /// job that finished meanwhile is left alone.
    package func recoverExpiredLeases(now: Int64, deadOwners: [String] = [], lostAttemptLimit: Int?) throws -> [RecoveredJob] {
        try write("recover jobs with expired leases", now: now) { now in
            var expired: [(lease: ExpiredLease, queue: String, throttleInterval: Int64, key: String?, kind: String)] = []
            try connection.query(
                """
                SELECT id, attempts - progressed_attempts, max_attempts, cancel_requested, lease_owner, queue,
                       throttle_interval_ms, attempts, partition_key, kind, lost_in_a_row, last_lost_attempt,
                       \(Self.attemptMadeProgress)
                FROM jobs
                WHERE state = 'running'
                  AND (lease_expires_at < ?1 OR lease_owner IN (SELECT value FROM json_each(?2)))
                """, [now, Self.jsonArray(deadOwners)]
            ) { row in
                let lease = ExpiredLease(
                    id: JobID(row.int64(0)), owner: row.optionalString(4), attempts: Int(row.int64(7)),
                    countedAttempts: Int(row.int64(1)), maxAttempts: row.optionalInt(2), cancelRequested: row.int64(3) != 0,
                    lost: LostAttempts(inARow: Int(row.int64(10)), lastLost: row.optionalInt(11)), madeProgress: row.int64(12) != 0)
                expired.append((lease, row.string(5), row.int64(6), row.optionalString(8), row.string(9)))
            }
            try connection.query(Self.passedHandOffDeadlines, [now]) { row in
                let target = HandOffTarget(carrier: row.string(4), reference: row.string(8), deadline: row.optionalInt64(9))
                let lease = ExpiredLease(
                    id: JobID(row.int64(0)), owner: nil, attempts: Int(row.int64(7)), countedAttempts: Int(row.int64(1)),
                    maxAttempts: row.optionalInt(2), cancelRequested: row.int64(3) != 0, handOff: target)
                expired.append((lease, row.string(5), row.int64(6), row.optionalString(10), row.string(11)))
            }
            return try expired.map { job in
                let id = job.lease.id
                let verdict = job.lease.verdict(deadOwners: deadOwners, lostAttemptLimit: lostAttemptLimit)
                try connection.execute(
                    """
                    UPDATE jobs SET state = ?2, error = ?3, lease_owner = NULL, lease_expires_at = NULL,
                                    finished_at = ?4, updated_at = ?5, lost_in_a_row = ?6, last_lost_attempt = ?7
                    WHERE id = ?1
                    """,
                    [id.rawValue, verdict.state.rawValue, try JobCodec.encode(verdict.failure), verdict.state.isTerminal ? now : nil, now,
                     verdict.lost.inARow, verdict.lost.lastLost])
                try appendEvent(
                    id, now: now, from: job.lease.handOff == nil ? .running : .handedOff, to: verdict.state,
                    attempt: job.lease.attempts, reason: verdict.reason, worker: job.lease.owner)
                try recordEnd(queue: job.queue, interval: job.throttleInterval, key: job.key, now: now)
                if verdict.state.isTerminal { try jobEnded(id, now: now) }
                return RecoveredJob(
                    id: id, previousOwner: job.lease.owner, state: verdict.state, queue: job.queue, kind: job.kind,
                    isPoison: verdict.isPoison, handOff: job.lease.handOff)
            }
        }
    }

    /// Gives running attempts back without counting them (graceful shutdown, or an attempt whose
    /// lease expired before its handler started): each job returns to `pending`, or to `cancelled`
    /// if a cancel was requested.
    ///
    /// - Returns: The attempts released; one that `owner` no longer holds is left alone.
    package func release(_ attempts: [AttemptID], owner: String, now: Int64, reason: String) throws -> [AttemptID] {
        try write("release \(attempts.count) job(s) of worker '\(owner)'", now: now) { now in
            var released: [AttemptID] = []
            for attempt in attempts {
                let id = attempt.job
                var row: (attempts: Int, cancel: Bool, queue: String, throttleInterval: Int64, eventCount: Int64, key: String?)?
                try connection.query(
                    """
                    UPDATE jobs SET state = CASE cancel_requested WHEN 1 THEN ?5 ELSE ?6 END,
                                    attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
                                    progressed_attempts = progressed_attempts - (checkpoint_attempt IS attempts),
                                    checkpoint_attempt = CASE WHEN checkpoint_attempt IS attempts THEN NULL
                                                              ELSE checkpoint_attempt END,
                                    finished_at = CASE cancel_requested WHEN 1 THEN ?3 END, updated_at = ?3,
                                    event_count = event_count + 1
                    WHERE id = ?1 AND state = 'running' AND lease_owner = ?2 AND attempts = ?4
                    RETURNING attempts, cancel_requested, queue, throttle_interval_ms, event_count, partition_key
                    """,
                    [id.rawValue, owner, now, attempt.number, GiveBack.state(cancelRequested: true).rawValue,
                     GiveBack.state(cancelRequested: false).rawValue]
                ) { found in
                    row = (Int(found.int64(0)), found.int64(1) != 0, found.string(2), found.int64(3), found.int64(4), found.optionalString(5))
                }
                guard let row else { continue }
                let state = GiveBack.state(cancelRequested: row.cancel)
                try appendEvents([
                    EventRow(
                        job: id, at: now, from: .running, to: state, attempt: row.attempts,
                        reason: reason, worker: owner, seq: row.eventCount)
                ])
                try recordEnd(queue: row.queue, interval: row.throttleInterval, key: row.key, now: now)
                if state.isTerminal { try jobEnded(id, now: now) }
                released.append(attempt)
            }
            return released
        }
    }

    /// Whether a running job's current attempt made progress: saved a new checkpoint or committed a
    /// durable step (a column of a `SELECT … FROM jobs`).
    static let attemptMadeProgress = """
        (checkpoint_attempt IS attempts OR EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = jobs.id AND s.attempt = jobs.attempts))
        """

    /// The handed-off jobs whose deadline is before `?1`, as recovery reads them.
    static let passedHandOffDeadlines = """
        SELECT id, attempts - progressed_attempts, max_attempts, cancel_requested, handed_off_to, queue,
               throttle_interval_ms, attempts, handoff_reference, handoff_deadline, partition_key, kind
        FROM jobs
        WHERE state = 'handed_off' AND handoff_deadline < ?1
        """
}
