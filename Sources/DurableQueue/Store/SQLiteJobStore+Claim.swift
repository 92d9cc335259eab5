import Foundation

extension SQLiteJobStore {
    /// Claims up to `limit` due jobs of `queue` for `owner`, in queue order, in one transaction.
    ///
    /// Order: higher priority first, then FIFO or LIFO by the queue's mode. Nothing is claimed from a
    /// suspended queue, and never more than its concurrency limit allows across every process.
    /// Scheduled jobs that are due are promoted to `pending` first. Each claimed job becomes
    /// `running`, counts an attempt, holds a lease until `now + leaseDuration` and gets its event row.
    ///
    /// - Parameters:
    ///   - kinds: Only claim jobs of these kinds (those registered in this process); nil claims any.
    ///   - leaseDuration: Milliseconds the lease holds without a heartbeat.
    /// - Returns: The claimed jobs, in the order they should start.
    package func claim(
        queue: String, limit: Int, owner: String, leaseDuration: Int64, now: Int64, kinds: [String]? = nil
    ) throws -> [ClaimedJob] {
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        guard leaseDuration > 0 else {
            throw DurableQueueError.invalidArgument("leaseDuration", "\(leaseDuration) ms is not positive")
        }
        return try write("claim the next jobs of queue '\(queue)'") {
            try promoteDueJobs(now: now)
            let slots = try freeSlots(queue: queue, wanted: limit)
            guard slots > 0 else { return [] }
            var claimed: [ClaimedJob] = []
            try connection.query(
                Self.claimStatement(filteringKinds: kinds != nil),
                [queue, owner, now + leaseDuration, now, kinds.map(Self.jsonArray), slots]
            ) { row in
                claimed.append(
                    ClaimedJob(
                        id: JobID(row.int64(0)), queue: queue, kind: row.string(1), input: row.string(2),
                        priority: Priority(rawValue: Int(row.int64(3))), attempt: Int(row.int64(4)),
                        maxAttempts: row.optionalInt(5), retryPolicy: row.optionalString(6),
                        timeoutMilliseconds: row.optionalInt64(7), checkpoint: row.optionalBlob(8),
                        runAt: row.int64(10), leaseExpiresAt: now + leaseDuration, orderKey: row.int64(9)))
            }
            for job in claimed {
                try appendEvent(job.id, now: now, from: .pending, to: .running, attempt: job.attempt, reason: "claimed", worker: owner)
            }
            // RETURNING gives no order; restore the queue's.
            return claimed.sorted { ($0.priority, -$0.orderKey) > ($1.priority, -$1.orderKey) }
        }
    }

    /// The claim: an UPDATE of the first `?6` pending jobs of queue `?1`, in queue order.
    ///
    /// The inner SELECT walks idx_jobs_next_pending in order and stops after `?6` rows, whatever the
    /// backlog (a test checks its query plan). `?5` is a JSON array of kinds when filtering.
    static func claimStatement(filteringKinds: Bool) -> String {
        """
        UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?2, lease_expires_at = ?3,
                        started_at = ?4, updated_at = ?4
        WHERE id IN (SELECT id FROM jobs WHERE queue = ?1 AND state = 'pending'
                     \(filteringKinds ? "AND kind IN (SELECT value FROM json_each(?5))" : "")
                     ORDER BY priority DESC, order_key LIMIT ?6)
        RETURNING id, kind, input, priority, attempts, max_attempts, retry_policy, timeout_ms, checkpoint, order_key,
                  run_at
        """
    }

    /// Moves scheduled jobs whose time has come to `pending`, with their event rows.
    ///
    /// At most `batch` jobs per call, the earliest due first, so one call never holds the write lock long.
    /// - Returns: How many jobs were promoted.
    @discardableResult
    func promoteDueJobs(now: Int64, batch: Int = 500) throws -> Int {
        var promoted: [(JobID, Int)] = []
        try connection.query(
            """
            UPDATE jobs SET state = 'pending', updated_at = ?1
            WHERE id IN (SELECT id FROM jobs WHERE state = 'scheduled' AND run_at <= ?1 ORDER BY run_at LIMIT ?2)
            RETURNING id, attempts
            """, [now, batch]
        ) { row in promoted.append((JobID(row.int64(0)), Int(row.int64(1)))) }
        for (id, attempts) in promoted {
            try appendEvent(id, now: now, from: .scheduled, to: .pending, attempt: attempts, reason: "due")
        }
        return promoted.count
    }

    /// How many jobs of `queue` may start now, at most `wanted`: 0 if the queue is suspended.
    private func freeSlots(queue: String, wanted: Int) throws -> Int {
        var settings: (limit: Int, suspended: Bool)?
        try connection.query("SELECT concurrency_limit, suspended FROM queues WHERE name = ?", [queue]) { row in
            settings = (Int(row.int64(0)), row.int64(1) != 0)
        }
        guard let settings, !settings.suspended else { return 0 }
        guard settings.limit > 0 else { return wanted }
        let running = try connection.scalarInt64(
            "SELECT count(*) FROM jobs WHERE queue = ? AND state = 'running'", [queue]) ?? 0
        return min(wanted, max(0, settings.limit - Int(running)))
    }

    /// The earliest run-at time of any scheduled job, or nil if none is scheduled.
    package func nextScheduledRunAt() throws -> Int64? {
        try read("find the next scheduled job") {
            try connection.scalarInt64("SELECT min(run_at) FROM jobs WHERE state = 'scheduled'")
        }
    }

    /// `strings` as a JSON array, for binding a list to one `json_each(?)` parameter.
    static func jsonArray(_ strings: [String]) -> String {
        // Encoding an array of strings cannot fail.
        String(decoding: (try? JSONEncoder().encode(strings)) ?? Data("[]".utf8), as: UTF8.self)
    }
}
