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
               throttle_interval_ms, attempts, handoff_reference, handoff_deadline, partition_key, kind, group_id
        FROM jobs
        WHERE state = 'handed_off' AND handoff_deadline < ?1
        ORDER BY id
        """
}
