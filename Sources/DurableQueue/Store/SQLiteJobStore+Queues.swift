extension SQLiteJobStore {
    /// Creates or updates a queue's settings, shared by every process on the file.
    ///
    /// Changing the mode re-orders the queue's unfinished jobs (a scan of that queue's jobs).
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func configure(_ queue: QueueConfiguration, now: Int64) throws {
        try queue.validate()
        try write("configure queue '\(queue.name)'") {
            let previousMode = try mode(of: queue.name)
            try connection.execute(
                """
                INSERT INTO queues (name, mode, concurrency_limit, suspended, created_at, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                ON CONFLICT (name) DO UPDATE SET mode = excluded.mode, concurrency_limit = excluded.concurrency_limit,
                                                 suspended = excluded.suspended, updated_at = excluded.updated_at
                """, [queue.name, queue.mode.rawValue, queue.concurrencyLimit, queue.isSuspended, now])
            knownQueues.insert(queue.name)
            if let previousMode, previousMode != queue.mode {
                // order_key is +id on FIFO queues and -id on LIFO queues: flip it for unfinished jobs.
                try connection.execute(
                    """
                    UPDATE jobs SET order_key = -order_key
                    WHERE queue = ? AND state IN ('scheduled', 'pending', 'blocked', 'running')
                    """, [queue.name])
            }
        }
    }

    /// Suspends (`true`) or resumes a queue: running jobs finish, nothing new starts while suspended.
    ///
    /// - Throws: `invalidArgument` when no such queue exists.
    package func setSuspended(_ suspended: Bool, queue: String, now: Int64) throws {
        try write("\(suspended ? "suspend" : "resume") queue '\(queue)'") {
            try connection.execute(
                "UPDATE queues SET suspended = ?, updated_at = ? WHERE name = ?", [suspended, now, queue])
            guard connection.changes == 1 else {
                throw DurableQueueError(.invalidArgument, "no queue is named '\(queue)'", queue: queue)
            }
        }
    }

    /// The settings of queue `name`, or nil if it has none.
    package func queue(named name: String) throws -> QueueConfiguration? {
        try read("read queue '\(name)'") {
            try queues(where: "WHERE name = ?", [name]).first
        }
    }

    /// Every queue's settings, by name.
    package func queues() throws -> [QueueConfiguration] {
        try read("list queues") { try queues(where: "", []) }
    }

    private func queues(where clause: String, _ arguments: [(any SQLiteBindable)?]) throws -> [QueueConfiguration] {
        var result: [QueueConfiguration] = []
        try connection.query(
            "SELECT name, mode, concurrency_limit, suspended FROM queues \(clause) ORDER BY name", arguments
        ) { row in
            result.append(
                QueueConfiguration(
                    row.string(0), mode: try QueueMode(validating: row.string(1)),
                    concurrencyLimit: Int(row.int64(2)), isSuspended: row.int64(3) != 0))
        }
        return result
    }

    private func mode(of queue: String) throws -> QueueMode? {
        var mode: QueueMode?
        try connection.query("SELECT mode FROM queues WHERE name = ?", [queue]) { row in
            mode = try QueueMode(validating: row.string(0))
        }
        return mode
    }
}
