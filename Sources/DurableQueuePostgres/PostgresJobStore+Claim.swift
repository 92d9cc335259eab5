import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Claims as ``ClaimRequest`` says, in one transaction: due scheduled jobs become `pending` first;
    /// then queue by queue, from the request's rotation, each queue's jobs in index order (higher
    /// priority first, then FIFO or LIFO) until the room is used.
    package func claim(_ request: ClaimRequest) async throws -> [ClaimedJob] {
        try Self.validate(request)
        return try await write("claim jobs", notify: false) { [self] session in try await claim(session, request.at(stamp(request.now))) }
    }

    static func validate(_ request: ClaimRequest) throws {
        guard request.room >= 0 else { throw DurableQueueError.invalidArgument("room", "\(request.room) is negative") }
        guard request.leaseDuration > 0 else { throw DurableQueueError.invalidArgument("leaseDuration", "\(request.leaseDuration) ms is not positive") }
    }

    /// Every queue's settings, whether it has a pending job (the first entry of its index: an
    /// `EXISTS` here lets the planner hash every pending job when it misjudges the queues table's
    /// size, measured at 2 ms a claim with 7,000 pending), and whether a scheduled job is due.
    package enum QueueStates: PreparedSQL {
        package static let name = "durablequeue_queue_states"
        package static let sql = queueStates(now: "$1") + " ORDER BY q.name"
    }

    /// ``QueueStates``' query with the time `now` (a parameter), unordered.
    static func queueStates(now: String) -> String {
        """
        SELECT q.name, q.concurrency_limit, q.suspended, q.throttle_measured_from, q.rate_limit_count,
               q.rate_limit_window_ms, q.next_start_at, q.throttle_interval_ms, q.partition_limit, q.fairness,
               ((SELECT j.id FROM jobs AS j WHERE j.queue = q.name AND j.state = 'pending'
                ORDER BY j.priority DESC, j.order_key LIMIT 1) IS NOT NULL)::int,
               EXISTS (SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= \(now))::int, 0,
               \(keySettingColumns)
        FROM queues AS q
        """
    }

    /// The columns of a queue `q`'s limits per key, in ``QueueStates`` and ``LimitedQueueState``
    /// from column 13 on: its key throttle and rate limit, and whether it has overrides.
    private static let keySettingColumns = """
        q.key_throttle_interval_ms, q.key_throttle_measured_from, q.key_rate_limit_count, q.key_rate_limit_window_ms,
        EXISTS (SELECT 1 FROM key_limits AS o WHERE o.queue = q.name)::int
        """

    /// ``claim(_:)`` inside the caller's transaction.
    func claim(_ session: PostgresSession, _ request: ClaimRequest) async throws -> [ClaimedJob] {
        var states = try QueueStartStates(await session.rows(QueueStates.self, [request.now]))
        if states.scheduledDue {
            try await promoteDueJobs(session, now: request.now)
            states = try QueueStartStates(await session.rows(QueueStates.self, [request.now]))
        }
        return try await claim(session, request, from: states.visits(for: request))
    }

    /// Claims for `request` from `queues` in their order until its room is used; `claimed` are
    /// the jobs claimed already (by the statement that recorded endings).
    func claim(_ session: PostgresSession, _ request: ClaimRequest, from queues: [QueueStartSettings], claimed: [ClaimedJob] = [])
        async throws -> [ClaimedJob]
    {
        var claimed = claimed
        var holdsQueueLock = false
        for queue in queues where claimed.count < request.room {
            claimed += try await claim(
                session, queue: queue, limit: request.room - claimed.count, request: request, holdsQueueLock: &holdsQueueLock)
        }
        return claimed
    }

    /// Claims up to `limit` jobs of `queue`. A limited queue is locked first (an advisory lock that
    /// lasts until the transaction ends, taken in its own statement so that the counts read after it
    /// see every claim committed before), then its starts are counted.
    ///
    /// A claim waits for a queue's lock only while it holds no other (`holdsQueueLock` false):
    /// claims visit queues in rotations of their own, and two that each held one queue's lock while
    /// waiting for the other's would deadlock. Holding one, it takes the next only if it is free,
    /// and otherwise leaves that queue to the claim that has it.
    private func claim(
        _ session: PostgresSession, queue: QueueStartSettings, limit: Int, request: ClaimRequest, holdsQueueLock: inout Bool
    ) async throws -> [ClaimedJob] {
        var request = request
        var slots = limit
        var settings = queue
        var overrides: [String: KeyLimits] = [:]
        if queue.isLimited {
            let lock = "durablequeue:\(schema):\(queue.name)"
            if holdsQueueLock {
                guard try await session.rows(TryLockQueue.self, [lock]).first?.bool(0) == true else { return [] }
            } else {
                try await session.rows(LockQueue.self, [lock])
            }
            holdsQueueLock = true
            // The queue's lock is held: the counts, the limits' verdict and the claim's rows are
            // stamped after every start and end committed before.
            request = request.at(stamp(request.now))
            guard let row = try await session.rows(LimitedQueueState.self, [queue.name, request.now]).first else { return [] }
            settings = try QueueStartSettings(row)
            guard settings.mayStart(at: request.now) else { return [] }
            slots = settings.slots(wanted: slots, running: try row.int(11), recentStarts: try row.int(12))
            overrides = try Self.keyOverrides(row, from: 18)
        }
        guard slots > 0 else { return [] }
        let leaseExpiresAt = request.now + request.leaseDuration
        var keys = KeyWalk(defaults: settings.keyLimits, overrides: overrides, now: request.now)
        let rows: [PostgresResultRow]
        if keys.isActive {
            rows = try await claimByKeys(session, queue: queue.name, slots: slots, request: request, keys: &keys)
        } else {
            let kinds = request.kinds.columns
            rows = try await session.rows(
                ClaimNext.self,
                [
                    queue.name, kinds.names, request.excluding.map(\.rawValue), slots, request.owner, leaseExpiresAt, request.now,
                    kinds.lowest, kinds.highest,
                ])
        }
        return try await claimed(session, rows, queue: settings, request: request, keyStarts: keys.records)
    }

    /// The jobs of `queue` that a claim statement returned as `rows` (``claimedJobs(where:owner:leaseExpiresAt:now:)``'s
    /// columns), in the queue's order, once their starts are recorded as its limits and `keyStarts` need.
    func claimed(
        _ session: PostgresSession, _ rows: [PostgresResultRow], queue settings: QueueStartSettings, request: ClaimRequest,
        keyStarts: [KeyStartRecord] = []
    ) async throws -> [ClaimedJob] {
        let leaseExpiresAt = request.now + request.leaseDuration
        // In the queue's order: higher priority first, then by order key.
        let ordered = try rows.map { ($0, try $0.int(3), try $0.int64(12)) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }
        let claimed = try ordered.map { row, _, _ in
            var job = ClaimedJob(
                id: JobID(try row.int64(0)), queue: settings.name, kind: try row.string(1), version: try row.int(15),
                input: try row.string(2),
                priority: Priority(rawValue: try row.int(3)), attempt: try row.int(4), maxAttempts: try row.optionalInt(5),
                retryPolicy: try row.optionalString(6), timeoutMilliseconds: try row.optionalInt64(7),
                checkpoint: try row.optionalBytes(8), runAt: try row.int64(9), leaseExpiresAt: leaseExpiresAt,
                throttleIntervalMilliseconds: try row.int64(10), progressedAttempts: try row.int(11),
                traceContext: try row.optionalString(13))
            job.mayHaveSteps = try row.bool(14)
            return job
        }
        if !claimed.isEmpty && (settings.isLimited || claimed.contains(where: { $0.throttleIntervalMilliseconds > 0 })) {
            try await recordStarts(session, claimed, queue: settings, now: request.now)
        }
        if !claimed.isEmpty { try await recordKeyStarts(session, keyStarts, queue: settings.name) }
        if settings.fair, let moved = FairOrder.virtualTime(afterStarting: try ordered.map { try $0.0.int64(12) }) {
            // Without waiting: a claim elsewhere holding the row moves the virtual time itself, and
            // a time left a little behind only lets a new key's first job start a turn sooner.
            try await session.execute(
                """
                UPDATE queues SET fair_time = $2
                WHERE name = (SELECT name FROM queues WHERE name = $1 AND fair_time < $2 FOR NO KEY UPDATE SKIP LOCKED)
                """, [settings.name, moved])
        }
        return claimed
    }

    /// Takes the advisory lock named `$1` until the transaction ends.
    private enum LockQueue: PreparedSQL {
        static let name = "durablequeue_lock_queue"
        static let sql = "SELECT pg_advisory_xact_lock(hashtext($1))"
    }

    /// Takes the advisory lock named `$1` until the transaction ends if no other transaction holds
    /// it; whether it did.
    private enum TryLockQueue: PreparedSQL {
        static let name = "durablequeue_try_lock_queue"
        static let sql = "SELECT pg_try_advisory_xact_lock(hashtext($1))"
    }

    /// Queue `$1`'s settings as ``QueueStates`` reads them, then how many of its jobs run and how
    /// many starts its rate limit counts at `$2`, then its keys' overrides (from column 18).
    private enum LimitedQueueState: PreparedSQL {
        static let name = "durablequeue_limited_queue_state"
        static let sql = """
            SELECT q.name, q.concurrency_limit, q.suspended, q.throttle_measured_from, q.rate_limit_count,
                   q.rate_limit_window_ms, q.next_start_at, q.throttle_interval_ms, q.partition_limit, q.fairness, 1,
                   (SELECT count(*) FROM jobs WHERE queue = q.name AND state = 'running'),
                   (SELECT count(*) FROM queue_starts AS s WHERE s.queue = q.name AND s.started_at > $2 - q.rate_limit_window_ms),
                   \(keySettingColumns), \(PostgresJobStore.keyOverrideColumns(queue: "q.name"))
            FROM queues AS q WHERE q.name = $1
            """
    }

    /// Claims up to `$4` pending jobs of queue `$1` of the kinds `$2` at the versions from `$8` to
    /// `$9` (aligned with the kinds), not `$3`, for worker `$5` until `$6`, at `$7`, with their events: a walk of idx_jobs_next_pending in its order (no sort; a
    /// test checks the plan) that skips rows another transaction holds. A job with a throttle
    /// interval is the last claimed (the next start waits for it): a picked job is kept unless a
    /// throttled one comes before it (looked for only when one was picked: comparing every pair
    /// took a third of the statement's time). The picked rows are updated through the primary key
    /// whatever the plan guesses of `LIMIT $4` (a plan made once for any room guessed a tenth of
    /// the table and joined it whole). Registers the worker as alive until the lease ends, without
    /// waiting: its row is inserted when it has none, and moved on when it had lapsed (an idle
    /// worker claiming again) unless another transaction of the worker holds it; a working
    /// worker's row is kept fresh by its heartbeats, so most claims write nothing there (each
    /// claim's update of that one hot row was a dead tuple per claim). The rows come back in no
    /// particular order.
    package enum ClaimNext: PreparedSQL {
        package static let name = "durablequeue_claim"
        package static let sql = """
            WITH \(nextJobs(queue: "$1", kinds: "$2", lowest: "$8", highest: "$9", excluding: "$3", limit: "$4")),
            \(claimedJobs(where: nextJobsPicked, owner: "$5", leaseExpiresAt: "$6", now: "$7"))
            """
    }

    /// The CTEs `picked` and `kept` of ``ClaimNext``: the next jobs of `queue` of the `kinds` at
    /// their versions (``runs(kinds:lowest:highest:)``), not `excluding`, at most `limit`
    /// (parameters); ``nextJobsPicked`` selects them from the jobs `j`.
    static func nextJobs(queue: String, kinds: String, lowest: String, highest: String, excluding: String, limit: String) -> String {
        """
        picked AS (
            SELECT id, priority, order_key, \(throttleInterval(of: "jobs")) AS throttle_interval_ms FROM jobs
            WHERE queue = \(queue) AND state = 'pending' AND \(runs(kinds: kinds, lowest: lowest, highest: highest))
              AND id <> ALL(\(excluding)::bigint[])
            ORDER BY priority DESC, order_key
            LIMIT \(limit)
            FOR NO KEY UPDATE SKIP LOCKED
        ),
        kept AS (
            SELECT p.id FROM picked AS p
            WHERE NOT EXISTS (SELECT 1 FROM picked AS t WHERE t.throttle_interval_ms > 0)
               OR NOT EXISTS (SELECT 1 FROM picked AS t
                              WHERE t.throttle_interval_ms > 0
                                AND (t.priority > p.priority OR (t.priority = p.priority AND t.order_key < p.order_key)))
        )
        """
    }

    /// The condition that a job's kind and version are among those a worker runs
    /// (``RunnableKinds/runs(kind:version:)``): its kind is one of `kinds` (a text array) and its
    /// version between the aligned entries of `lowest` and `highest` (integer arrays). A kind not
    /// among them finds no bounds, and the condition is NULL.
    static func runs(kinds: String, lowest: String, highest: String) -> String {
        """
        version BETWEEN (\(lowest)::int[])[array_position(\(kinds)::text[], kind)]
                    AND (\(highest)::int[])[array_position(\(kinds)::text[], kind)]
        """
    }

    /// The condition on the jobs `j` that ``nextJobs(queue:kinds:lowest:highest:excluding:limit:)`` picked.
    static let nextJobsPicked = "j.id = ANY (ARRAY(SELECT id FROM kept))"

    /// The end of a claim statement, whose jobs `where` (SQL over the jobs `j`) picks: they run
    /// under worker `owner` until `leaseExpiresAt` from `now` (parameters), with their history rows;
    /// registers the worker as alive (see ``ClaimNext``) and returns the claimed rows.
    static func claimedJobs(where condition: String, owner: String, leaseExpiresAt: String, now: String) -> String {
        """
        \(claimedRows(where: condition, owner: owner, leaseExpiresAt: leaseExpiresAt, now: now)),
        events AS (
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
            SELECT id, \(now), 'pending', 'running', attempts, 'claimed', \(owner) FROM claimed
        ),
        \(workerAlive(owner: owner, leaseExpiresAt: leaseExpiresAt, now: now))
        \(claimedColumns)
        """
    }

    /// The rows of the CTE `claimed` (``claimedRows(where:owner:leaseExpiresAt:now:)``) with their
    /// side rows' columns, as ``claimed(_:_:queue:request:keyStarts:)`` reads them.
    static let claimedColumns = """
        SELECT c.id, c.kind, c.input, c.priority, c.attempts, c.max_attempts, o.retry_policy, o.timeout_ms, a.checkpoint, c.run_at,
               coalesce(o.throttle_interval_ms, 0), coalesce(a.progressed_attempts, 0), c.order_key, o.trace_context, c.has_steps,
               c.version
        FROM claimed AS c
        \(sideRows(of: "c"))
        """

    /// The CTE `claimed` of ``claimedJobs(where:owner:leaseExpiresAt:now:)``: the jobs start, and
    /// their rows are returned (``claimedColumns`` joins their side rows). Their history rows are
    /// the caller's to write.
    static func claimedRows(where condition: String, owner: String, leaseExpiresAt: String, now: String) -> String {
        """
        claimed AS (
            UPDATE jobs AS j SET state = 'running', attempts = j.attempts + 1, lease_owner = \(owner),
                                 lease_expires_at = \(leaseExpiresAt), started_at = \(now), updated_at = \(now)
            WHERE \(condition)
            RETURNING j.id, j.kind, j.input::text AS input, j.priority, j.attempts, j.max_attempts, j.extras, j.run_at,
                      j.order_key, EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = j.id)::int AS has_steps, j.version
        )
        """
    }

    /// The CTEs `worker` and `new_worker` of ``claimedJobs(where:owner:leaseExpiresAt:now:)``: the
    /// worker `owner` is registered as alive until `leaseExpiresAt` when it claimed any job.
    static func workerAlive(owner: String, leaseExpiresAt: String, now: String) -> String {
        """
        worker AS (
            UPDATE workers AS w SET alive_until = \(leaseExpiresAt), updated_at = \(now)
            WHERE w.id = (SELECT id FROM workers WHERE id = \(owner) AND alive_until < \(now) FOR UPDATE SKIP LOCKED)
              AND EXISTS (SELECT 1 FROM claimed)
        ),
        new_worker AS (
            INSERT INTO workers (id, alive_until, updated_at)
            SELECT \(owner), \(leaseExpiresAt), \(now)
            WHERE EXISTS (SELECT 1 FROM claimed) AND NOT EXISTS (SELECT 1 FROM workers WHERE id = \(owner))
            ON CONFLICT (id) DO NOTHING
        )
        """
    }

    /// Moves up to ``DuePromotion/batch`` scheduled jobs whose time has come to `pending`, the earliest first, with
    /// their events; rows another transaction holds are left for the next claim.
    private func promoteDueJobs(_ session: PostgresSession, now: Int64) async throws {
        try await session.execute(
            """
            WITH due AS (
                UPDATE jobs SET state = 'pending', updated_at = $1
                WHERE id IN (SELECT id FROM jobs WHERE state = 'scheduled' AND run_at <= $1 ORDER BY run_at LIMIT $2
                             FOR NO KEY UPDATE SKIP LOCKED)
                RETURNING id, attempts
            )
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
            SELECT id, $1, 'scheduled', 'pending', attempts, $3 FROM due
            """, [now, DuePromotion.batch, DuePromotion.reason])
    }

    /// The earliest time after `now` when a claim may find more to start.
    package func nextWakeTime(after now: Int64) async throws -> Int64? {
        try await read("find when the next job may start") { session in
            try await session.rows(NextWakeTime.self, [now]).first?.optionalInt64(0)
        }
    }

    /// The earliest run time of a scheduled job, or next start of a queue or a key after `$1`.
    private enum NextWakeTime: PreparedSQL {
        static let name = "durablequeue_next_wake_time"
        static let sql = """
            SELECT least((SELECT min(run_at) FROM jobs WHERE state = 'scheduled'),
                         (SELECT min(next_start_at) FROM queues WHERE next_start_at > $1),
                         (SELECT min(next_start_at) FROM partition_keys WHERE next_start_at > 0 AND next_start_at > $1))
            """
    }
}

extension QueueStartSettings {
    /// The settings as `QueueStates` and `LimitedQueueState` read them (their first ten columns,
    /// then columns 13 to 17).
    fileprivate init(_ row: PostgresResultRow) throws {
        let keyLimits = KeyLimits(
            stored: 0, throttleInterval: try row.int64(13), measuredFrom: try row.string(14), rateCount: try row.int(15),
            rateWindow: try row.int64(16))
        self.init(
            name: try row.string(0), concurrencyLimit: try row.int(1), suspended: try row.bool(2),
            measuredFromEnd: try row.string(3) == Throttle.Measurement.end.rawValue, rateCount: try row.int(4), rateWindow: try row.int64(5),
            nextStart: try row.int64(6), throttleInterval: try row.int64(7), partitionLimit: try row.int(8),
            fair: try row.string(9) == Fairness.byKey.rawValue, keyThrottle: keyLimits.throttle, keyRateLimit: keyLimits.rateLimit,
            hasKeyOverrides: try row.bool(17))
    }
}

/// Every queue's start settings and whether it has a pending job, as ``PostgresJobStore/QueueStates``
/// reads them, and whether a scheduled job is due.
struct QueueStartStates {
    var queues: [(settings: QueueStartSettings, hasPending: Bool)]
    var scheduledDue: Bool

    /// Reads `rows` of ``PostgresJobStore/QueueStates``' columns.
    init(_ rows: [PostgresResultRow]) throws {
        queues = try rows.map { row in (settings: try QueueStartSettings(row), hasPending: try row.bool(10)) }
        scheduledDue = try rows.first?.bool(11) ?? false
    }

    /// The queues a claim for `request` visits, in its order: from the request's rotation among
    /// the queues it takes, those with a pending job that may start a job now.
    func visits(for request: ClaimRequest) -> [QueueStartSettings] {
        guard request.room > 0, !request.kinds.isEmpty else { return [] }
        let taken = queues.filter { request.takes(queue: $0.settings.name) }
        guard !taken.isEmpty else { return [] }
        let first = Int(request.rotation.magnitude % UInt(taken.count))
        return (0..<taken.count).map { taken[(first + $0) % taken.count] }
            .filter { $0.hasPending && $0.settings.mayStart(at: request.now) }.map(\.settings)
    }
}
