import DurableQueueCore
import Foundation

extension SQLiteJobStore {
    /// Claims as ``ClaimRequest`` says, in one transaction: due scheduled jobs become `pending`
    /// first; then queue by queue, from the request's rotation, each queue's jobs in its order
    /// (higher priority first, then FIFO or LIFO) until the room is used.
    ///
    /// Nothing is claimed from a suspended queue or before its next allowed start (throttle, rate
    /// limit), and never more than its concurrency limit and rate limit allow across every process.
    /// Each claimed job becomes `running`, counts an attempt, holds a lease until `now +
    /// leaseDuration` and gets its event row.
    package func claimJobs(_ request: ClaimRequest) throws -> [ClaimedJob] {
        guard request.room >= 0 else { throw DurableQueueError.invalidArgument("room", "\(request.room) is negative") }
        guard request.leaseDuration > 0 else {
            throw DurableQueueError.invalidArgument("leaseDuration", "\(request.leaseDuration) ms is not positive")
        }
        return try write("claim jobs", now: request.now) { now in try claimWithinTransaction(request.at(now)) }
    }

    /// ``claimJobs(_:)`` inside the caller's write transaction.
    func claimWithinTransaction(_ request: ClaimRequest) throws -> [ClaimedJob] {
        let (all, due) = try queuesAndDue(now: request.now)
        if due { try promoteDueJobs(now: request.now) }
        guard request.room > 0, !request.kinds.isEmpty else { return [] }
        let queues = all.filter { request.takes(queue: $0.name) }
        guard !queues.isEmpty else { return [] }
        let first = request.rotation.magnitude % UInt(queues.count)
        var claimed: [ClaimedJob] = []
        for offset in 0..<queues.count where claimed.count < request.room {
            claimed += try claimWithinTransaction(
                queue: queues[(Int(first) + offset) % queues.count], limit: request.room - claimed.count, request: request)
        }
        return claimed
    }

    /// Every queue's settings in name order, and whether a scheduled job is due at `now`: what a
    /// claim reads first, in one statement (it was three: the due probe, the names, each queue's
    /// row). The settings are known without a read while nobody else has written to the file and
    /// this store has not written to `queues` or `key_limits` (``knownClaimQueues``): then only
    /// the due probe is read (the whole read was 5 % of a job run one at a time).
    private func queuesAndDue(now: Int64) throws -> (queues: [QueueStartSettings], due: Bool) {
        if let known = transactionClaimQueues { return (known, try connection.scalarInt64(Self.dueStatement, [now]) == 1) }
        var queues: [QueueStartSettings] = []
        var due = false
        try connection.query(
            """
            SELECT name, concurrency_limit, suspended, throttle_measured_from, rate_limit_count, rate_limit_window_ms,
                   next_start_at, throttle_interval_ms, partition_limit,
                   EXISTS (SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= ?1), fairness,
                   key_throttle_interval_ms, key_throttle_measured_from, key_rate_limit_count, key_rate_limit_window_ms,
                   EXISTS (SELECT 1 FROM key_limits WHERE queue = name)
            FROM queues ORDER BY name
            """, [now]
        ) { row in
            let keyLimits = KeyLimits(
                stored: 0, throttleInterval: row.int64(11), measuredFrom: row.string(12), rateCount: Int(row.int64(13)),
                rateWindow: row.int64(14))
            queues.append(
                QueueStartSettings(
                    name: row.string(0), concurrencyLimit: Int(row.int64(1)), suspended: row.int64(2) != 0,
                    measuredFromEnd: row.string(3) == Throttle.Measurement.end.rawValue, rateCount: Int(row.int64(4)),
                    rateWindow: row.int64(5), nextStart: row.int64(6), throttleInterval: row.int64(7),
                    partitionLimit: Int(row.int64(8)), fair: row.string(10) == Fairness.byKey.rawValue,
                    keyThrottle: keyLimits.throttle, keyRateLimit: keyLimits.rateLimit, hasKeyOverrides: row.int64(15) != 0))
            due = row.int64(9) != 0
        }
        transactionClaimQueues = queues
        return (queues, due)
    }

    /// Whether a scheduled job is due at `?1`: a probe of idx_jobs_scheduled.
    private static let dueStatement = "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= ?1)"

    /// Says that the transaction under way wrote to `queues` or `key_limits`: the next claim reads
    /// the queues' start settings again.
    func queueSettingsChanged() {
        transactionClaimQueues = nil
        knownClaimQueues = nil
    }

    /// Claims up to `limit` (positive) due jobs of `queue` as `request` says, inside the caller's
    /// write transaction; due scheduled jobs were promoted already.
    private func claimWithinTransaction(queue settings: QueueStartSettings, limit: Int, request: ClaimRequest) throws -> [ClaimedJob] {
        let now = request.now
        let queue = settings.name
        let allowance = try startAllowance(settings, wanted: limit, now: now)
        let slots = allowance.slots
        guard slots > 0 else { return [] }
        var claimed: [ClaimedJob] = []
        // Each claimed job's event count before the claim, for its history row's number.
        var eventCounts: [Int64] = []
        // Each key's limits, what was read of it and what this claim started of it.
        var keys = KeyWalk(
            defaults: settings.keyLimits, overrides: settings.hasKeyOverrides ? try keyOverrides(of: queue) : [:], now: now)
        let keysLimited = keys.isActive
        // The claimed jobs' order keys: a fair queue's virtual time moves to the latest.
        var orderKeys: [Int64] = []
        try connection.queryPrefix(Self.nextPendingStatement, [queue]) { row in
            let kind = row.string(1)
            let version = Int(row.int64(11))
            if !request.kinds.runs(kind: kind, version: version) { return true }  // left for a process that runs it
            if !request.excluding.isEmpty, request.excluding.contains(JobID(row.int64(0))) { return true }  // still running there
            if keysLimited, let key = row.optionalString(8) {
                switch try keys.admit(key, read: { try keyState(queue: queue, key: key, limits: $0) }) {
                case .start: break
                case .skip: return true  // its key may not start more now: the walk goes on to other keys' jobs
                case .stop: return false
                }
            }
            let id = row.int64(0)
            let extras = try claimExtras(of: id, extras: JobExtras(rawValue: row.int64(6)))
            var job = ClaimedJob(
                id: JobID(id), queue: queue, kind: kind, version: version, input: row.string(2),
                priority: Priority(rawValue: Int(row.int64(3))), attempt: Int(row.int64(4)) + 1,
                maxAttempts: row.optionalInt(5), retryPolicy: extras.retryPolicy,
                timeoutMilliseconds: extras.timeoutMilliseconds, checkpoint: extras.checkpoint,
                runAt: row.int64(7), leaseExpiresAt: now + request.leaseDuration, throttleIntervalMilliseconds: extras.throttleInterval,
                progressedAttempts: extras.progressedAttempts, traceContext: extras.traceContext)
            // Every step records a history row: a job without one has none.
            job.mayHaveSteps = row.int64(9) > 0
            claimed.append(job)
            eventCounts.append(row.int64(9))
            orderKeys.append(row.int64(10))
            // A job with a throttle interval is the last claimed: the next start waits for it.
            return claimed.count < slots && job.throttleIntervalMilliseconds == 0
        }
        for start in stride(from: 0, to: claimed.count, by: Self.rowsPerStatement) {
            let end = min(start + Self.rowsPerStatement, claimed.count)
            try markRunning(
                claimed[start..<end], eventCounts: eventCounts[start..<end], owner: request.owner,
                leaseExpiresAt: now + request.leaseDuration, now: now)
        }
        try recordStarts(claimed, queue: queue, allowance: allowance, now: now)
        try recordKeyStarts(keys.records, queue: queue)
        if settings.fair, let moved = FairOrder.virtualTime(afterStarting: orderKeys) {
            try connection.execute("UPDATE queues SET fair_time = ?2 WHERE name = ?1 AND fair_time < ?2", [queue, moved])
        }
        return claimed
    }

    /// Marks `run` (at most ``rowsPerStatement`` jobs read as pending in this transaction) running
    /// their next attempt under `owner`, with their history rows: a statement for the rows, one for
    /// the history. `eventCounts` are the jobs' event counts as read, in the same order.
    private func markRunning(
        _ run: ArraySlice<ClaimedJob>, eventCounts: ArraySlice<Int64>, owner: String, leaseExpiresAt: Int64, now: Int64
    ) throws {
        try connection.execute(Self.markRunningStatements[run.count - 1]) { binder in
            binder.bind(owner)
            binder.bind(leaseExpiresAt)
            binder.bind(now)
            for job in run { binder.bind(job.id.rawValue) }
        }
        let commit = try commitNumber(changesJobs: true)
        try connection.execute(Self.claimEventStatements[run.count - 1]) { binder in
            binder.bind(owner)
            binder.bind(commit)
            binder.bind(now)
            for (job, count) in zip(run, eventCounts) {
                binder.bind(job.id.rawValue)
                binder.bind(count + 1)
                binder.bind(job.attempt)
            }
        }
    }

    /// The claim's update of 1 … ``rowsPerStatement`` jobs (`?4`…), at the index one less than the count.
    private static let markRunningStatements = multiRowTexts(
        """
        UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?1, lease_expires_at = ?2,
                        started_at = ?3, updated_at = ?3, event_count = event_count + 1
        WHERE id IN (
        """, tail: ")"
    ) { "?\(4 + $0)" }

    /// The history rows of 1 … ``rowsPerStatement`` claims (job, event number and attempt from `?4`
    /// on; the owner `?1`, the commit number `?2`, the time `?3`), at the index one less than the count.
    private static let claimEventStatements = multiRowTexts(
        "INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker, tx) VALUES "
    ) { "(?\(4 + 3 * $0), ?\(5 + 3 * $0), ?3, 'pending', 'running', ?\(6 + 3 * $0), 'claimed', ?1, ?2)" }

    /// The pending jobs of queue `?1` in the order they start: a walk of idx_jobs_next_pending
    /// (a test checks its query plan), which the claim stops as soon as it has enough.
    ///
    /// Reading first and updating each claimed row by id needs no temporary b-tree; one UPDATE of a
    /// LIMITed subquery with RETURNING built five per claim.
    static let nextPendingStatement = """
        SELECT id, kind, input, priority, attempts, max_attempts, extras, run_at, partition_key, event_count, order_key,
               version
        FROM jobs WHERE queue = ? AND state = 'pending' ORDER BY priority DESC, order_key
        """

    /// How many jobs of partition `?2` of queue `?1` run: a search of idx_jobs_running.
    static let runningInPartitionStatement = """
        SELECT count(*) FROM jobs WHERE queue = ?1 AND partition_key = ?2 AND state = 'running' AND partition_key IS NOT NULL
        """

    /// What a claim needs of `key` of `queue` under `limits`: its running jobs if they are limited
    /// (through idx_jobs_running), its next allowed start and recent starts if it is throttled or
    /// rate-limited (its partition_keys row), inside the claim's transaction.
    private func keyState(queue: String, key: String, limits: KeyLimits) throws -> KeyState {
        var state = KeyState()
        if limits.runningLimit > 0 {
            state.running = Int(try connection.scalarInt64(Self.runningInPartitionStatement, [queue, key]) ?? 0)
        }
        if limits.needsStartRecord {
            try connection.query(Self.keyStartsStatement, [queue, key]) { row in
                state.nextStart = row.int64(0)
                state.recentStarts = (try? JSONTextDecoder.decode([Int64].self, from: row.string(1))) ?? []
            }
        }
        return state
    }

    /// Key `?2` of queue `?1`'s next allowed start and recent starts: a search of its primary key.
    static let keyStartsStatement = "SELECT next_start_at, recent_starts FROM partition_keys WHERE queue = ?1 AND key = ?2"

    /// Stores what `records` say of `queue`'s keys whose jobs a claim started: the later next start,
    /// the gap after each end, the recent starts.
    private func recordKeyStarts(_ records: [KeyStartRecord], queue: String) throws {
        for record in records {
            try connection.execute(
                """
                INSERT INTO partition_keys (queue, key, last_tag, next_start_at, end_gap_ms, recent_starts)
                VALUES (?1, ?2, 0, ?3, ?4, ?5)
                ON CONFLICT (queue, key) DO UPDATE SET
                    next_start_at = max(next_start_at, excluded.next_start_at), end_gap_ms = excluded.end_gap_ms,
                    recent_starts = excluded.recent_starts
                """, [queue, record.key, record.nextStart, record.endGap, try JSONTextEncoder.encode(record.recentStarts)])
        }
    }

    /// Moves scheduled jobs whose time has come to `pending`, with their event rows; called once a
    /// probe of idx_jobs_scheduled found one (usually none is due).
    ///
    /// At most ``DuePromotion/batch`` jobs per call, the earliest due first.
    /// The due jobs are read first and updated by id, as a claim does: one UPDATE of a LIMITed
    /// subquery with RETURNING cost 12% more per promoted job (SQLite gathers the returned rows in
    /// a temporary table; measured on the store's schema from C).
    private func promoteDueJobs(now: Int64) throws {
        var promoted: [EventRow] = []
        try connection.query(Self.dueJobsStatement, [now, DuePromotion.batch]) { row in
            promoted.append(
                EventRow(
                    job: JobID(row.int64(0)), at: now, from: .scheduled, to: .pending, attempt: Int(row.int64(1)),
                    reason: DuePromotion.reason, worker: nil, seq: row.int64(2) + 1))
        }
        for start in stride(from: 0, to: promoted.count, by: Self.rowsPerStatement) {
            let end = min(start + Self.rowsPerStatement, promoted.count)
            try connection.execute(Self.promoteStatements[end - start - 1]) { binder in
                binder.bind(now)
                for index in start..<end { binder.bind(promoted[index].job.rawValue) }
            }
        }
        try appendEvents(promoted)
    }

    /// The scheduled jobs due at `?1`, the earliest first, at most `?2`: a walk of
    /// idx_jobs_scheduled.
    private static let dueJobsStatement = """
        SELECT id, attempts, event_count FROM jobs WHERE state = 'scheduled' AND run_at <= ?1 ORDER BY run_at LIMIT ?2
        """

    /// The promotion of 1 … ``rowsPerStatement`` due jobs (`?2`…) at `?1`, at the index one less than the count.
    private static let promoteStatements = multiRowTexts(
        "UPDATE jobs SET state = 'pending', updated_at = ?1, event_count = event_count + 1 WHERE id IN (", tail: ")"
    ) { "?\(2 + $0)" }

    /// The earliest time after `now` when a claim may find more to start: the next scheduled job's
    /// run-at time, or a queue's or a key's next allowed start (throttle, rate limit); nil if none is ahead.
    package func earliestWake(after now: Int64) throws -> Int64? {
        try read("find when the next job may start") {
            try connection.scalarInt64(Self.earliestWakeStatement, [now])
        }
    }

    /// The earliest run time of a scheduled job, or next start of a queue or a key after `?1`:
    /// searches of idx_jobs_scheduled and idx_partition_keys_next_start (a test checks the plan).
    static let earliestWakeStatement = """
        SELECT min(at) FROM (SELECT min(run_at) AS at FROM jobs WHERE state = 'scheduled'
                             UNION ALL
                             SELECT min(next_start_at) FROM queues WHERE next_start_at > ?1
                             UNION ALL
                             SELECT min(next_start_at) FROM partition_keys WHERE next_start_at > 0 AND next_start_at > ?1)
        """

    /// `strings` as a JSON array, for binding a list to one `json_each(?)` parameter.
    static func jsonArray(_ strings: [String]) -> String {
        // Encoding an array of strings cannot fail.
        (try? JSONTextEncoder.encode(strings)) ?? "[]"
    }
}
