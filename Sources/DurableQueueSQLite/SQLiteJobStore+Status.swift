import DurableQueueCore

extension SQLiteJobStore {
    /// Every queue's settings, counts by state and next allowed start, by name.
    package func queueStatuses() throws -> [QueueStatus] {
        let counts = Dictionary(uniqueKeysWithValues: try counts().map { ($0.queue, $0) })
        let nextStarts = try read("read when each queue may next start a job") {
            var nextStarts: [String: Int64] = [:]
            try connection.query("SELECT name, next_start_at FROM queues WHERE next_start_at > 0") { row in
                nextStarts[row.string(0)] = row.int64(1)
            }
            return nextStarts
        }
        return try queues().map { queue in
            QueueStatus(
                configuration: queue, counts: counts[queue.name] ?? QueueCounts(queue: queue.name, counts: [:]),
                nextStartAt: nextStarts[queue.name])
        }
    }

    /// How many jobs are unfinished (scheduled, pending, blocked or running) over every queue.
    ///
    /// Each state is counted through its partial index (blocked jobs through the group index: only
    /// a job of a group is ever blocked), so finished jobs cost nothing however many there are.
    func unfinishedJobCount() throws -> Int {
        try read("count unfinished jobs") {
            Int(
                try connection.scalarInt64(
                    """
                    SELECT (SELECT count(*) FROM jobs WHERE state = 'scheduled')
                         + (SELECT count(*) FROM jobs WHERE state = 'pending')
                         + (SELECT count(*) FROM jobs WHERE group_id IS NOT NULL AND state = 'blocked')
                         + (SELECT count(*) FROM jobs WHERE state = 'running')
                         + (SELECT count(*) FROM jobs WHERE state = 'handed_off')
                         + (SELECT count(*) FROM jobs WHERE state = 'waiting')
                    """) ?? 0)
        }
    }

    /// How many jobs wait (scheduled, pending or blocked) in each queue, every queue listed.
    ///
    /// Counts through the partial indexes of those states, so the finished jobs (usually most of
    /// the file) are never read.
    package func waitingJobCounts() throws -> [String: Int] {
        try read("count waiting jobs") {
            var counts: [String: Int] = [:]
            try connection.query(
                """
                SELECT q.name, (SELECT count(*) FROM jobs WHERE state = 'scheduled' AND queue = q.name)
                             + (SELECT count(*) FROM jobs WHERE state = 'pending' AND queue = q.name)
                             + (SELECT count(*) FROM jobs WHERE group_id IS NOT NULL AND state = 'blocked' AND queue = q.name)
                FROM queues AS q
                """
            ) { row in counts[row.string(0)] = Int(row.int64(1)) }
            return counts
        }
    }

    /// The SQLite library's version and this connection's `journal_mode` and `synchronous` setting.
    package func sqliteSettings() throws -> (version: String, journalMode: String, synchronous: String) {
        try read("read the SQLite settings") {
            var version = "", journal = "", synchronous = ""
            try connection.query("SELECT sqlite_version()") { version = $0.string(0) }
            try connection.query("PRAGMA journal_mode") { journal = $0.string(0) }
            try connection.query("PRAGMA synchronous") { row in
                synchronous = ["OFF", "NORMAL", "FULL", "EXTRA"][Int(row.int64(0)) % 4]
            }
            return (version, journal, synchronous)
        }
    }

    /// The unfinished jobs of queue `name` by partition key (see ``JobStoreReader/keyCounts(queue:)``).
    package func keyCounts(queue name: String) throws -> [KeyCounts] {
        try read("count the jobs of queue '\(name)' by key") {
            var byKey: [String?: [JobState: Int]] = [:]
            for state in JobFilter.unfinished.sorted(by: { $0.rawValue < $1.rawValue }) {
                try connection.query(
                    "SELECT partition_key, count(*) FROM jobs WHERE queue = ? AND state = ? GROUP BY partition_key",
                    [name, state.rawValue]
                ) { row in byKey[row.optionalString(0), default: [:]][state] = Int(row.int64(1)) }
            }
            var nextStarts: [String: Int64] = [:]
            try connection.query("SELECT key, next_start_at FROM partition_keys WHERE queue = ? AND next_start_at > 0", [name]) { row in
                nextStarts[row.string(0)] = row.int64(1)
            }
            return KeyCounts.sorted(byKey, nextStarts: nextStarts)
        }
    }
}

