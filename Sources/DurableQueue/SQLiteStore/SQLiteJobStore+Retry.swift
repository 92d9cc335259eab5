extension SQLiteJobStore {
    /// Puts a `failed` or `cancelled` job back to `pending` with a fresh set of attempts, keeping its
    /// checkpoint (so a download resumes) and recording the change in its history.
    ///
    /// - Throws: `jobNotFound` when no job has that id; `invalidArgument` when the job has not
    ///   failed or been cancelled, belongs to a sequence or group, or another unfinished job holds
    ///   its unique key. Nothing changes when it throws.
    package func retry(_ id: JobID, now: Int64) throws {
        try write("retry job \(id)") {
            var found: (state: JobState, attempts: Int, group: Int64?, uniqueKey: String?)?
            try connection.query("SELECT state, attempts, group_id, unique_key FROM jobs WHERE id = ?", [id.rawValue]) { row in
                found = (try JobState(stored: row.string(0)), Int(row.int64(1)), row.optionalInt64(2), row.optionalString(3))
            }
            guard let found else { throw DurableQueueError.jobNotFound(id) }
            guard found.state == .failed || found.state == .cancelled else {
                throw DurableQueueError(
                    .invalidArgument, "only a failed or cancelled job can be retried; this one is \(found.state.rawValue)",
                    jobID: id)
            }
            guard found.group == nil else {
                throw DurableQueueError(
                    .invalidArgument, "a job of a sequence or group cannot be retried on its own; enqueue the composition again",
                    jobID: id)
            }
            if let key = found.uniqueKey {
                var holder: Int64?
                try connection.query(
                    """
                    SELECT id FROM jobs
                    WHERE unique_key = ? AND id != ? AND \(Self.holdsUniqueKey) LIMIT 1
                    """, [key, id.rawValue]
                ) { holder = $0.int64(0) }
                if let holder {
                    throw DurableQueueError(
                        .invalidArgument, "job \(holder) is unfinished and holds the same unique key '\(key)'", jobID: id)
                }
            }
            try connection.execute(
                """
                UPDATE jobs SET state = 'pending', attempts = 0, progressed_attempts = 0, checkpoint_attempt = NULL,
                                cancel_requested = 0, run_at = ?2, lease_owner = NULL,
                                lease_expires_at = NULL, finished_at = NULL, updated_at = ?2
                WHERE id = ?1
                """, [id.rawValue, now])
            try appendEvent(
                id, now: now, from: found.state, to: .pending, attempt: 0,
                reason: "retry requested after \(found.attempts) attempt(s)")
        }
    }
}
