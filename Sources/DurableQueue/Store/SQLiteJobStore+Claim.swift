import Foundation

extension SQLiteJobStore {
    /// Claims up to `limit` due jobs of `queue` for `owner`, in queue order, in one transaction.
    ///
    /// Order: higher priority first, then FIFO or LIFO by the queue's mode. Nothing is claimed from a
    /// suspended queue or before its next allowed start (throttle, rate limit), and never more than
    /// its concurrency limit and rate limit allow across every process. A job with a throttle
    /// interval is the last claimed: the next start waits for its interval.
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
            try claimWithinTransaction(queue: queue, limit: limit, owner: owner, leaseDuration: leaseDuration, now: now, kinds: kinds)
        }
    }

    /// ``claim(queue:limit:owner:leaseDuration:now:kinds:)`` inside the caller's write transaction
    /// (`limit` and `leaseDuration` positive).
    func claimWithinTransaction(
        queue: String, limit: Int, owner: String, leaseDuration: Int64, now: Int64, kinds: [String]?
    ) throws -> [ClaimedJob] {
        try promoteDueJobs(now: now, batch: 500)
        let allowance = try startAllowance(queue: queue, wanted: limit, now: now)
        let slots = allowance.slots
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
                    runAt: row.int64(10), leaseExpiresAt: now + leaseDuration, orderKey: row.int64(9),
                    throttleIntervalMilliseconds: row.int64(11)))
        }
        try recordStarts(claimed, queue: queue, allowance: allowance, now: now)
        for job in claimed {
            try appendEvent(job.id, now: now, from: .pending, to: .running, attempt: job.attempt, reason: "claimed", worker: owner)
        }
        // RETURNING gives no order; restore the queue's.
        return claimed.sorted { ($0.priority, -$0.orderKey) > ($1.priority, -$1.orderKey) }
    }

    /// The claim: an UPDATE of the first `?6` pending jobs of queue `?1`, in queue order, up to and
    /// including the first with a throttle interval.
    ///
    /// The innermost SELECT walks idx_jobs_next_pending in order and stops after `?6` rows, whatever
    /// the backlog (a test checks its query plan); the window then drops the rows after the first
    /// throttled one. `?5` is a JSON array of kinds when filtering.
    static func claimStatement(filteringKinds: Bool) -> String {
        """
        UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?2, lease_expires_at = ?3,
                        started_at = ?4, updated_at = ?4
        WHERE id IN (
            SELECT id FROM (
                SELECT id, sum(throttle_interval_ms > 0) OVER (
                           ORDER BY priority DESC, order_key ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
                       ) AS throttled_before
                FROM (SELECT id, priority, order_key, throttle_interval_ms FROM jobs WHERE queue = ?1 AND state = 'pending'
                      \(filteringKinds ? "AND kind IN (SELECT value FROM json_each(?5))" : "")
                      ORDER BY priority DESC, order_key LIMIT ?6))
            WHERE coalesce(throttled_before, 0) = 0)
        RETURNING id, kind, input, priority, attempts, max_attempts, retry_policy, timeout_ms, checkpoint, order_key,
                  run_at, throttle_interval_ms
        """
    }

    /// Moves scheduled jobs whose time has come to `pending`, with their event rows.
    ///
    /// At most `batch` jobs per call, the earliest due first, so one call never holds the write lock long.
    /// - Returns: How many jobs were promoted.
    @discardableResult
    func promoteDueJobs(now: Int64, batch: Int) throws -> Int {
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

    /// The earliest time after `now` when a claim may find more to start: the next scheduled job's
    /// run-at time or a queue's next allowed start (throttle, rate limit); nil if neither is ahead.
    package func nextWakeTime(after now: Int64) throws -> Int64? {
        try read("find when the next job may start") {
            try connection.scalarInt64(
                """
                SELECT min(at) FROM (SELECT min(run_at) AS at FROM jobs WHERE state = 'scheduled'
                                     UNION ALL
                                     SELECT min(next_start_at) FROM queues WHERE next_start_at > ?)
                """, [now])
        }
    }

    /// `strings` as a JSON array, for binding a list to one `json_each(?)` parameter.
    static func jsonArray(_ strings: [String]) -> String {
        // Encoding an array of strings cannot fail.
        String(decoding: (try? JSONEncoder().encode(strings)) ?? Data("[]".utf8), as: UTF8.self)
    }
}
