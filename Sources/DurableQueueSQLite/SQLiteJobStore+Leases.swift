import DurableQueueCore

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

    /// Whether a running job's current attempt made progress: saved a new checkpoint or committed a
    /// durable step (a column of a `SELECT … FROM jobs`).
    static let attemptMadeProgress = """
        (a.checkpoint_attempt IS jobs.attempts
         OR EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = jobs.id AND s.attempt = jobs.attempts))
        """

    /// The FROM of a recovery's read: each job with its side rows, `o` its options, `a` its
    /// attempt state (recovery is rare: the joins cost a plain job nothing).
    static let jobsWithSideRows = """
        jobs LEFT JOIN job_options AS o ON o.job_id = jobs.id LEFT JOIN job_attempt_state AS a ON a.job_id = jobs.id
        """

    /// The handed-off jobs whose deadline is before `?1`, as recovery reads them.
    static let passedHandOffDeadlines = """
        SELECT id, attempts - coalesce(a.progressed_attempts, 0), max_attempts, cancel_requested, w.handed_off_to, queue,
               coalesce(o.throttle_interval_ms, 0), attempts, w.handoff_reference, w.handoff_deadline, partition_key, kind,
               group_id
        FROM job_wait_targets AS w JOIN jobs ON jobs.id = w.job_id
             LEFT JOIN job_options AS o ON o.job_id = jobs.id LEFT JOIN job_attempt_state AS a ON a.job_id = jobs.id
        WHERE w.active = 'handed_off' AND w.due_at < ?1 AND jobs.state = 'handed_off'
        """
}
