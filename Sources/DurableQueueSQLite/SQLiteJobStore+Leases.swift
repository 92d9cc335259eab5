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
        (checkpoint_attempt IS attempts OR EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = jobs.id AND s.attempt = jobs.attempts))
        """

    /// The handed-off jobs whose deadline is before `?1`, as recovery reads them.
    static let passedHandOffDeadlines = """
        SELECT id, attempts - progressed_attempts, max_attempts, cancel_requested, handed_off_to, queue,
               throttle_interval_ms, attempts, handoff_reference, handoff_deadline, partition_key, kind, group_id
        FROM jobs
        WHERE state = 'handed_off' AND handoff_deadline < ?1
        """
}
