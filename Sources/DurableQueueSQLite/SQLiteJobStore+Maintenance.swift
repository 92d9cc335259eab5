import DurableQueueCore

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

    /// How many jobs wait (pending or scheduled) of each kind and version, in each queue.
    package func waitingJobsByKind() throws -> [QueuedKindVersion: Int] {
        try read("count waiting jobs by kind") {
            var counts: [QueuedKindVersion: Int] = [:]
            try connection.query(
                "SELECT queue, kind, version, count(*) FROM jobs WHERE state IN ('pending', 'scheduled') GROUP BY queue, kind, version"
            ) { row in counts[QueuedKindVersion(queue: row.string(0), kind: row.string(1), version: Int(row.int64(2)))] = Int(row.int64(3)) }
            return counts
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
