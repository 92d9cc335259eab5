extension SQLiteJobStore {
    /// Puts a `failed` or `cancelled` job back to `pending` with a fresh set of attempts, keeping its
    /// checkpoint (so a download resumes) and recording the change in its history.
    ///
    /// - Throws: `jobNotFound` when no job has that id; `invalidArgument` when the job has not
    ///   failed or been cancelled, belongs to a sequence or group, or another unfinished job holds
    ///   its unique key. Nothing changes when it throws.
    package func retry(_ id: JobID, now: Int64) throws {
        try write("retry job \(id)", now: now) { now in try retryJob(id, now: now, via: nil) }
    }

    /// Retries job `id` inside the caller's write transaction, `via` (a bulk action) added to the
    /// history's reason; throws as ``retry(_:now:)`` does, before writing anything.
    func retryJob(_ id: JobID, now: Int64, via: String?) throws {
        var found: (state: JobState, attempts: Int, group: Int64?, uniqueKey: String?)?
        try connection.query("SELECT state, attempts, group_id, unique_key FROM jobs WHERE id = ?", [id.rawValue]) { row in
            found = (try JobState(stored: row.string(0)), Int(row.int64(1)), row.optionalInt64(2), row.optionalString(3))
        }
        guard let found else { throw DurableQueueError.jobNotFound(id) }
        var holder: Int64?
        if let key = found.uniqueKey {
            try connection.query(
                """
                SELECT id FROM jobs
                WHERE unique_key = ? AND id != ? AND \(Self.holdsUniqueKey) LIMIT 1
                """, [key, id.rawValue]
            ) { holder = $0.int64(0) }
        }
        try ManualRetry.check(
            id, state: found.state, group: found.group.map { GroupID($0) }, uniqueKey: found.uniqueKey,
            uniqueKeyHolder: holder.map { JobID($0) })
        try putBack(id, as: .pending, now: now)
        try appendEvent(
            id, now: now, from: found.state, to: .pending, attempt: 0, reason: ManualRetry.reason(afterAttempts: found.attempts, via: via))
    }

    /// Puts job `id` back in `state` with a fresh set of attempts, due at `now`, its checkpoint kept;
    /// the caller appends the history row.
    func putBack(_ id: JobID, as state: JobState, now: Int64) throws {
        try connection.execute(
            """
            UPDATE jobs SET state = ?3, attempts = 0, progressed_attempts = 0, checkpoint_attempt = NULL, cancel_requested = 0,
                            run_at = ?2, lease_owner = NULL, lease_expires_at = NULL, finished_at = NULL, updated_at = ?2,
                            lost_in_a_row = 0, last_lost_attempt = NULL
            WHERE id = ?1
            """, [id.rawValue, now, state.rawValue])
    }
}
