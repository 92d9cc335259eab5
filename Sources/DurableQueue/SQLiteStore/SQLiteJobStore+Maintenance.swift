extension SQLiteJobStore {
    /// A number that changes whenever another connection (any process) commits to the file.
    ///
    /// Reading it takes no lock, so an idle engine can poll it cheaply and claim only when it moved.
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_data_version>
    package func changeToken() throws -> Int64 {
        do {
            return try connection.scalarInt64("PRAGMA data_version") ?? 0
        } catch {
            throw Self.mapped(error, operation: "read the data version", path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// The names of every queue, sorted, inside the caller's transaction.
    func queueNamesWithinTransaction() throws -> [String] {
        var names: [String] = []
        try connection.query("SELECT name FROM queues ORDER BY name") { names.append($0.string(0)) }
        return names
    }

    /// Running jobs of `owner` whose cancel was requested (by this or another process).
    package func cancelRequested(owner: String) throws -> [JobID] {
        try read("find cancelled jobs of worker '\(owner)'") {
            var ids: [JobID] = []
            try connection.query(
                "SELECT id FROM jobs WHERE state = 'running' AND lease_owner = ? AND cancel_requested = 1", [owner]
            ) { ids.append(JobID($0.int64(0))) }
            return ids
        }
    }

    /// How many waiting jobs (pending or scheduled) there are of each kind not in `known`.
    package func waitingJobs(ofKindsOtherThan known: Set<String>) throws -> [String: Int] {
        try read("count waiting jobs by kind") {
            var counts: [String: Int] = [:]
            try connection.query(
                """
                SELECT kind, count(*) FROM jobs
                WHERE state IN ('pending', 'scheduled') AND kind NOT IN (SELECT value FROM json_each(?))
                GROUP BY kind
                """, [Self.jsonArray(known.sorted())]
            ) { row in counts[row.string(0)] = Int(row.int64(1)) }
            return counts
        }
    }

    /// Deletes up to `limit` jobs that reached `state` before `finishedBefore`, with their events and
    /// tags, oldest first, up to `limit` outermost groups that did, with their nested groups and
    /// history, and up to `limit` `deleted_jobs` lines of jobs deleted by hand in `state` before
    /// then. A job of a group still running is kept.
    ///
    /// - Returns: How many jobs, groups and lines were deleted; call again while it reaches `limit`.
    package func prune(state: JobState, finishedBefore: Int64, limit: Int = 500) throws -> Int {
        guard state.isTerminal else {
            throw DurableQueueError.invalidArgument("state", "only finished jobs can be pruned, not '\(state.rawValue)' ones")
        }
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        return try write("prune \(state.rawValue) jobs") {
            try connection.execute(
                """
                DELETE FROM jobs WHERE id IN (
                    SELECT id FROM jobs
                    WHERE state = ?1 AND finished_at < ?2
                      AND NOT EXISTS (SELECT 1 FROM groups AS g WHERE g.id = jobs.group_id AND g.state IN ('blocked', 'running'))
                    ORDER BY finished_at LIMIT ?3)
                """, [state.rawValue, finishedBefore, limit])
            let jobs = try connection.changes
            // Outermost groups that ended so long ago, with their nested groups and history.
            try connection.execute(
                """
                DELETE FROM groups WHERE id IN (SELECT id FROM groups
                                                WHERE parent_id IS NULL AND state = ?1 AND finished_at < ?2
                                                ORDER BY finished_at LIMIT ?3)
                """, [state.rawValue, finishedBefore, limit])
            let groups = try connection.changes
            try connection.execute(Self.pruneDeletedJobLinesStatement, [state.rawValue, finishedBefore, limit])
            return try jobs + groups + connection.changes
        }
    }

    /// Deletes up to `?3` `deleted_jobs` lines of jobs deleted in state `?1` before `?2`, oldest
    /// first: a search of idx_deleted_jobs_by_age, however many lines there are.
    static let pruneDeletedJobLinesStatement = """
        DELETE FROM deleted_jobs WHERE job_id IN (SELECT job_id FROM deleted_jobs
                                                  WHERE state = ?1 AND deleted_at < ?2
                                                  ORDER BY deleted_at LIMIT ?3)
        """
}
