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
    ///   - excluding: Jobs not to claim: those with an earlier attempt still running in the claiming
    ///     process (its lease was lost, its handler has not returned yet).
    ///   - leaseDuration: Milliseconds the lease holds without a heartbeat.
    /// - Returns: The claimed jobs, in the order they should start.
    package func claim(
        queue: String, limit: Int, owner: String, leaseDuration: Int64, now: Int64, kinds: Set<String>? = nil,
        excluding: Set<JobID> = []
    ) throws -> [ClaimedJob] {
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        guard leaseDuration > 0 else {
            throw DurableQueueError.invalidArgument("leaseDuration", "\(leaseDuration) ms is not positive")
        }
        return try write("claim the next jobs of queue '\(queue)'") {
            try claimWithinTransaction(
                queue: queue, limit: limit, owner: owner, leaseDuration: leaseDuration, now: now, kinds: kinds,
                excluding: excluding)
        }
    }

    /// ``claim(queue:limit:owner:leaseDuration:now:kinds:excluding:)`` inside the caller's write
    /// transaction (`limit` and `leaseDuration` positive).
    func claimWithinTransaction(
        queue: String, limit: Int, owner: String, leaseDuration: Int64, now: Int64, kinds: Set<String>?,
        excluding: Set<JobID>
    ) throws -> [ClaimedJob] {
        try promoteDueJobs(now: now, batch: 500)
        let allowance = try startAllowance(queue: queue, wanted: limit, now: now)
        let slots = allowance.slots
        guard slots > 0 else { return [] }
        var claimed: [ClaimedJob] = []
        try connection.queryPrefix(Self.nextPendingStatement, [queue]) { row in
            let kind = row.string(1)
            if let kinds, !kinds.contains(kind) { return true }  // left for a process that runs it
            if !excluding.isEmpty, excluding.contains(JobID(row.int64(0))) { return true }  // still running here
            let job = ClaimedJob(
                id: JobID(row.int64(0)), queue: queue, kind: kind, input: row.string(2),
                priority: Priority(rawValue: Int(row.int64(3))), attempt: Int(row.int64(4)) + 1,
                maxAttempts: row.optionalInt(5), retryPolicy: row.optionalString(6),
                timeoutMilliseconds: row.optionalInt64(7), checkpoint: row.optionalBlob(8),
                runAt: row.int64(9), leaseExpiresAt: now + leaseDuration, throttleIntervalMilliseconds: row.int64(10),
                progressedAttempts: Int(row.int64(11)))
            claimed.append(job)
            // A job with a throttle interval is the last claimed: the next start waits for it.
            return claimed.count < slots && job.throttleIntervalMilliseconds == 0
        }
        for job in claimed {
            try connection.execute(
                """
                UPDATE jobs SET state = 'running', attempts = ?2, lease_owner = ?3, lease_expires_at = ?4,
                                started_at = ?5, updated_at = ?5
                WHERE id = ?1
                """, [job.id.rawValue, job.attempt, owner, job.leaseExpiresAt, now])
        }
        try recordStarts(claimed, queue: queue, allowance: allowance, now: now)
        for job in claimed {
            try appendEvent(job.id, now: now, from: .pending, to: .running, attempt: job.attempt, reason: "claimed", worker: owner)
        }
        return claimed
    }

    /// The pending jobs of queue `?1` in the order they start: a walk of idx_jobs_next_pending
    /// (a test checks its query plan), which the claim stops as soon as it has enough.
    ///
    /// Reading first and updating each claimed row by id needs no temporary b-tree; one UPDATE of a
    /// LIMITed subquery with RETURNING built five per claim.
    static let nextPendingStatement = """
        SELECT id, kind, input, priority, attempts, max_attempts, retry_policy, timeout_ms, checkpoint, run_at,
               throttle_interval_ms, progressed_attempts
        FROM jobs WHERE queue = ? AND state = 'pending' ORDER BY priority DESC, order_key
        """

    /// Moves scheduled jobs whose time has come to `pending`, with their event rows.
    ///
    /// At most `batch` jobs per call, the earliest due first, so one call never holds the write lock long.
    /// - Returns: How many jobs were promoted.
    @discardableResult
    func promoteDueJobs(now: Int64, batch: Int) throws -> Int {
        // Every claim calls this, and usually nothing is due: a probe of idx_jobs_next_scheduled
        // costs less than the UPDATE, whose IN and RETURNING build temporary b-trees even when empty.
        guard try connection.scalarInt64(
            "SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= ? LIMIT 1", [now]) != nil
        else { return 0 }
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
