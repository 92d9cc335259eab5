import DurableQueue
import Foundation
import PostgresNIO

extension PostgresJobStore {
    /// Inserts every job of `jobs`, all or none, each with its tags; a job's row records its
    /// creation (`created_at`, `created_state`), which the history shows as its first event.
    ///
    /// Jobs without a unique key go in with one statement (the common case); a batch with a unique
    /// key, or for a fair queue (its jobs take their keys' tags), runs job by job.
    package func enqueue(_ jobs: [NewJob], now: Int64) async throws -> [EnqueueOutcome] {
        for job in jobs { try job.validate() }
        guard !jobs.isEmpty else { return [] }
        let operation = jobs.count == 1 ? "enqueue a '\(jobs[0].kind)' job on queue '\(jobs[0].queue)'" : "enqueue \(jobs.count) jobs"
        if jobs.allSatisfy({ ($0.uniqueKey == nil || $0.uniquePolicy == .allow) && $0.dependencies.isEmpty }) {
            if jobs.count == 1 {
                if let id = try await insertOne(jobs[0], operation: operation, now: now) { return [.inserted(id)] }
                // Its queue is fair: the job takes its key's tag.
                return try await insertWithFairTags(jobs, operation: operation, now: now)
            }
            let columns = InsertedColumns(jobs, now: now)
            // One statement, atomic by itself; creating a missing queue first may commit on its own.
            let ids = try await write(operation, notify: false, transaction: false) { [self] session in
                try await ensureQueuesExist(session, Set(jobs.map(\.queue)), now: now)
                return try await session.rows(InsertBatch.self, columns.values(now: now, channel: channel)).first?.cells[0].decode(
                    [Int64]?.self)
            }
            if let ids { return try Self.outcomes(ids, of: jobs) }
            // A job of the batch is for a fair queue: the statement inserted nothing.
            return try await insertWithFairTags(jobs, operation: operation, now: now)
        }
        return try await write(operation, now: now) { [self] session, now in
            var outcomes: [EnqueueOutcome] = []
            for job in jobs { outcomes.append(try await insert(session, job, now: now)) }
            try await attachDependencies(session, of: jobs, outcomes: outcomes, now: now)
            return outcomes
        }
    }

    /// SQL of the next job id: the sequence PostgreSQL made for the identity column `jobs.id`
    /// (migration 1) in the store's schema, found by name once, when a statement is prepared.
    /// (`pg_get_serial_sequence` searched the catalogs for every row: 3.8 µs of server time per job
    /// of a batch of 1,000: its server time fell from 16 to 12 µs a job.)
    static let nextJobID = "nextval('jobs_id_seq')"

    /// Attaches each inserted job's dependencies (``DependencySequences/attach(of:outcomes:in:now:)``),
    /// inside the caller's transaction.
    func attachDependencies(_ session: PostgresSession, of jobs: [NewJob], outcomes: [EnqueueOutcome], now: Int64) async throws {
        guard jobs.contains(where: { !$0.dependencies.isEmpty }) else { return }
        try await DependencySequences.attach(of: jobs, outcomes: outcomes, in: PostgresRows(store: self, session: session), now: now)
    }

    /// Inserts `job` (without a unique key to apply) with its tags in one statement of bound values
    /// (a batch's JSON records cost the client their encoding and the server their parsing, the
    /// most of an awaited enqueue's work); nil when its queue is fair, whose jobs take their keys'
    /// tags (``insertWithFairTags(_:operation:now:)``).
    private func insertOne(_ job: NewJob, operation: String, now: Int64) async throws -> JobID? {
        let state = job.initialState(now: now).rawValue
        let id = try await write(operation, notify: false, transaction: false) { [self] session in
            try await ensureQueuesExist(session, [job.queue], now: now)
            return try await session.rows(
                InsertOne.self,
                [
                    job.queue, job.kind, state, job.priority.rawValue, job.runAt ?? now, job.maxAttempts, job.retryPolicy,
                    job.timeoutMilliseconds, job.input, now, job.throttleIntervalMilliseconds, job.traceContext, job.partitionKey,
                    Array(Set(job.tags)).sorted(), channel, job.version,
                ]
            ).first?.int64(0)
        }
        return id.map { JobID($0) }
    }

    /// Inserts one job of a queue that is not fair, from bound values (`$1` its queue … `$14` its
    /// tags, `$16` its version), notifies channel `$15`, and returns its id; no row when the queue is
    /// fair. Its `job_options` row is written only when it has an option or its queue a throttle.
    private enum InsertOne: PreparedSQL {
        static let name = "durablequeue_insert_one"
        static let sql = """
            WITH q AS (SELECT name, mode, throttle_interval_ms FROM queues WHERE name = $1 AND fairness = 'none'),
            n AS (SELECT \(PostgresJobStore.nextJobID) AS id FROM q),
            inserted AS (
                INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, input, created_at, updated_at,
                                  partition_key, created_state, version, extras)
                SELECT n.id, q.name, $2, $3, $4, CASE q.mode WHEN 'lifo' THEN -n.id ELSE n.id END, $5, $6::int, $9::jsonb, $10, $10,
                       $13::text, $3, $16::int,
                       CASE WHEN $7::text IS NOT NULL OR $8::bigint IS NOT NULL OR $11::bigint IS NOT NULL OR $12::text IS NOT NULL
                                 OR q.throttle_interval_ms <> 0 THEN 1 ELSE 0 END
                FROM q, n
                RETURNING id, extras
            ),
            options AS (
                INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy,
                                         trace_context)
                SELECT i.id, $8::bigint, coalesce($11::bigint, q.throttle_interval_ms),
                       CASE WHEN $11::bigint IS NULL THEN 'queue' ELSE 'job' END, $7::text, $12::text
                FROM inserted AS i, q WHERE i.extras = 1
            ),
            tagged AS (INSERT INTO job_tags (tag, job_id) SELECT unnest($14::text[]), id FROM inserted)
            SELECT id, pg_notify($15, '') FROM inserted
            """
    }

    /// Inserts `jobs` (none with a unique key to apply), some of them for fair queues: their tags
    /// first, then ``InsertBatch`` with them, in one transaction.
    private func insertWithFairTags(_ jobs: [NewJob], operation: String, now: Int64) async throws -> [EnqueueOutcome] {
        try await write(operation, notify: false, now: now) { [self] session, now in
            let orderKeys = try await fairTags(session, of: jobs)
            let columns = InsertedColumns(jobs, now: now, orderKeys: orderKeys)
            let ids = try await session.rows(InsertBatch.self, columns.values(now: now, channel: channel)).first?.cells[0].decode(
                [Int64]?.self)
            return try Self.outcomes(ids ?? [], of: jobs)
        }
    }

    /// The outcomes of `jobs` inserted with `ids`, in order.
    private static func outcomes(_ ids: [Int64], of jobs: [NewJob]) throws -> [EnqueueOutcome] {
        guard ids.count == jobs.count else {
            throw DurableQueueError(.storage, "the database inserted \(ids.count) of \(jobs.count) jobs")
        }
        return ids.map { .inserted(JobID($0)) }
    }

    /// The order keys of `jobs` (by position; nil for a job of a queue that is not fair): each fair
    /// queue's job takes its key's next tag (``FairOrder/tag(virtualTime:lastTag:)``) in the batch's
    /// order, and each key's last tag is recorded, its row locked until the transaction ends.
    private func fairTags(_ session: PostgresSession, of jobs: [NewJob]) async throws -> [Int64?] {
        let queues = Set(jobs.map(\.queue)).sorted()
        var virtualTimes: [String: Int64] = [:]
        for row in try await session.rows(
            "SELECT name, fair_time FROM queues WHERE name = ANY($1) AND fairness = $2", [queues, Fairness.byKey.rawValue])
        {
            virtualTimes[try row.string(0)] = try row.int64(1)
        }
        var lastTags: [String: [String: Int64]] = [:]
        var orderKeys: [Int64?] = []
        for job in jobs {
            guard let virtualTime = virtualTimes[job.queue] else {
                orderKeys.append(nil)
                continue
            }
            if lastTags[job.queue] == nil {
                let keys = Set(jobs.filter { $0.queue == job.queue }.map { FairOrder.key(of: $0.partitionKey) }).sorted()
                var known: [String: Int64] = [:]
                for row in try await session.rows(
                    "SELECT key, last_tag FROM partition_keys WHERE queue = $1 AND key = ANY($2) ORDER BY key FOR UPDATE",
                    [job.queue, keys])
                {
                    known[try row.string(0)] = try row.int64(1)
                }
                lastTags[job.queue] = known
            }
            let key = FairOrder.key(of: job.partitionKey)
            let tag = FairOrder.tag(virtualTime: virtualTime, lastTag: lastTags[job.queue]?[key])
            lastTags[job.queue]?[key] = tag
            orderKeys.append(tag)
        }
        for (queue, tags) in lastTags {
            let keys = tags.keys.sorted()
            try await session.execute(
                """
                INSERT INTO partition_keys (queue, key, last_tag) SELECT $1, unnest($2::text[]), unnest($3::bigint[])
                ON CONFLICT (queue, key) DO UPDATE SET last_tag = excluded.last_tag
                """, [queue, keys, keys.map { tags[$0]! }])
        }
        return orderKeys
    }

    /// The jobs of a batch as one list per column, bound to ``InsertBatch``'s `unnest`: JSON records
    /// cost the client their encoding and the server their parsing.
    private struct InsertedColumns {
        var queues: [String] = [], kinds: [String] = [], states: [String] = [], inputs: [String] = []
        var priorities: [Int64] = [], runAts: [Int64] = [], versions: [Int64] = []
        var maxAttempts: [Int64?] = [], timeouts: [Int64?] = [], throttles: [Int64?] = [], orderKeys: [Int64?] = []
        var retryPolicies: [String?] = [], traceContexts: [String?] = [], partitionKeys: [String?] = []
        /// Each tag with its job's position in the batch (1 for the first).
        var tagPositions: [Int64] = [], tags: [String] = []

        /// `jobs` at `now`; `orderKeys` by position (nil: derived from the id).
        init(_ jobs: [NewJob], now: Int64, orderKeys: [Int64?]? = nil) {
            for (position, job) in jobs.enumerated() {
                queues.append(job.queue)
                kinds.append(job.kind)
                versions.append(Int64(job.version))
                states.append(job.initialState(now: now).rawValue)
                priorities.append(Int64(job.priority.rawValue))
                runAts.append(job.runAt ?? now)
                maxAttempts.append(job.maxAttempts.map(Int64.init))
                retryPolicies.append(job.retryPolicy)
                timeouts.append(job.timeoutMilliseconds)
                inputs.append(job.input)
                throttles.append(job.throttleIntervalMilliseconds)
                traceContexts.append(job.traceContext)
                partitionKeys.append(job.partitionKey)
                self.orderKeys.append(orderKeys?[position] ?? nil)
                for tag in Set(job.tags).sorted() {
                    tagPositions.append(Int64(position + 1))
                    tags.append(tag)
                }
            }
        }

        /// ``InsertBatch``'s values: the columns, then `now` and the channel to notify.
        func values(now: Int64, channel: String) -> [(any PostgresValue)?] {
            [
                queues, kinds, states, priorities, runAts, PostgresNullableArray(maxAttempts), PostgresNullableArray(retryPolicies),
                PostgresNullableArray(timeouts), inputs, PostgresNullableArray(throttles), PostgresNullableArray(traceContexts),
                PostgresNullableArray(partitionKeys), PostgresNullableArray(orderKeys), tagPositions, tags, now, channel, versions,
            ]
        }
    }

    /// Inserts the jobs of ``InsertedColumns`` (`$1` … `$13` a list per column, `$14` and `$15`
    /// the tags' jobs' positions and the tags, `$18` the versions) at `$16` and notifies channel `$17`; returns their
    /// ids in order. Ids come from the jobs' sequence in the batch's order, so that the order key
    /// (the id, or minus the id on a LIFO queue) is known in the same statement. When a job is for a
    /// fair queue (whose order keys are tags: see ``FairOrder``) and comes without its order key,
    /// nothing is inserted and the ids are NULL.
    private enum InsertBatch: PreparedSQL {
        static let name = "durablequeue_insert_columns"
        static let sql = """
            WITH fair AS (
                SELECT EXISTS (SELECT 1 FROM unnest($1::text[], $13::bigint[]) AS r(queue, order_key)
                               JOIN queues AS q ON q.name = r.queue
                               WHERE q.fairness <> 'none' AND r.order_key IS NULL)
                       AS present
            ),
            batch AS (
                SELECT \(PostgresJobStore.nextJobID) AS id, b.*
                FROM (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
                                           $7::text[], $8::bigint[], $9::text[], $10::bigint[], $11::text[], $12::text[],
                                           $13::bigint[], $18::bigint[])
                          WITH ORDINALITY AS r(queue, kind, state, priority, run_at, max_attempts, retry_policy, timeout_ms,
                                               input, throttle, trace_context, partition_key, order_key, version, "position")
                      ORDER BY "position") AS b
            ),
            inserted AS (
                INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, input, created_at, updated_at,
                                  partition_key, created_state, version, extras)
                SELECT b.id, b.queue, b.kind, b.state, b.priority, coalesce(b.order_key, CASE q.mode WHEN 'lifo' THEN -b.id ELSE b.id END),
                       b.run_at, b.max_attempts, b.input::jsonb, $16, $16, b.partition_key, b.state, b.version,
                       CASE WHEN b.retry_policy IS NOT NULL OR b.timeout_ms IS NOT NULL OR b.throttle IS NOT NULL
                                 OR b.trace_context IS NOT NULL OR q.throttle_interval_ms <> 0 THEN 1 ELSE 0 END
                FROM batch AS b JOIN queues AS q ON q.name = b.queue
                WHERE NOT (SELECT present FROM fair)
                RETURNING id, extras
            ),
            options AS (
                INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy,
                                         trace_context)
                SELECT b.id, b.timeout_ms, coalesce(b.throttle, q.throttle_interval_ms),
                       CASE WHEN b.throttle IS NULL THEN 'queue' ELSE 'job' END, b.retry_policy, b.trace_context
                FROM inserted AS i JOIN batch AS b ON b.id = i.id JOIN queues AS q ON q.name = b.queue
                WHERE i.extras = 1
            ),
            tagged AS (
                INSERT INTO job_tags (tag, job_id)
                SELECT t.tag, b.id FROM unnest($14::bigint[], $15::text[]) AS t("position", tag)
                JOIN batch AS b ON b."position" = t."position"
                WHERE NOT (SELECT present FROM fair)
            )
            SELECT CASE WHEN NOT (SELECT present FROM fair) THEN array_agg(id ORDER BY "position") END,
                   (SELECT pg_notify($17, '')) FROM batch
            """
    }

    /// Inserts `job` with its tags, or applies its unique-key policy. A job placed in a group starts
    /// `blocked` until the group lets it run. The row records the job's creation: no event row.
    func insert(_ session: PostgresSession, _ job: NewJob, now: Int64, placement: GroupPlacement? = nil) async throws
        -> EnqueueOutcome
    {
        try await ensureQueuesExist(session, [job.queue], now: now)
        var replacing: JobID?
        if let key = job.uniqueKey, job.uniquePolicy != .allow {
            if let existing = try await session.int64(
                "SELECT id FROM jobs WHERE unique_key = $1 AND \(Self.holdsUniqueKey) FOR NO KEY UPDATE", [key])
            {
                switch UniqueKeyRule.action(for: job.uniquePolicy) {
                case .keep:
                    return .existing(JobID(existing))
                case .debounce:
                    try await debounce(session, JobID(existing), with: job, now: now)
                    return .existing(JobID(existing))
                case .replace:
                    _ = try await requestCancel(session, JobID(existing), now: now, reason: UniqueKeyRule.replacedReason)
                    replacing = JobID(existing)
                }
            } else if let window = job.uniqueWindowMilliseconds,
                let recent = try await session.int64(
                    """
                    SELECT id FROM jobs WHERE unique_key = $1 AND created_at > $2 ORDER BY created_at DESC, id DESC LIMIT 1
                    """, [key, now - window])
            {
                return .existing(JobID(recent))
            }
        }
        let state = job.initialState(inGroup: placement != nil, now: now)
        let orderKey = try await fairTag(session, queue: job.queue, key: FairOrder.key(of: job.partitionKey))
        guard
            let inserted = try await session.int64(
                """
                WITH inserted AS (
                    INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, unique_key, input,
                                      created_at, updated_at, group_id, group_position, step_name, takes_previous_output,
                                      partition_key, created_state, version, extras)
                    SELECT n.id, q.name, $2, $3, $4, coalesce($19::bigint, CASE q.mode WHEN 'lifo' THEN -n.id ELSE n.id END), $5, $6,
                           $9, $10::jsonb, $11, $11, $13, $14, $15, $16, $18::text, $3, $20::int,
                           CASE WHEN $7::text IS NOT NULL OR $8::bigint IS NOT NULL OR $12::bigint IS NOT NULL
                                     OR $17::text IS NOT NULL OR q.throttle_interval_ms <> 0 THEN 1 ELSE 0 END
                    FROM queues AS q, (SELECT \(PostgresJobStore.nextJobID) AS id) AS n
                    WHERE q.name = $1
                    RETURNING id, extras, queue
                ),
                options AS (
                    INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy,
                                             trace_context)
                    SELECT i.id, $8::bigint, coalesce($12::bigint, q.throttle_interval_ms),
                           CASE WHEN $12::bigint IS NULL THEN 'queue' ELSE 'job' END, $7::text, $17::text
                    FROM inserted AS i JOIN queues AS q ON q.name = i.queue WHERE i.extras = 1
                )
                SELECT id FROM inserted
                """,
                [
                    job.queue, job.kind, state.rawValue, job.priority.rawValue, job.runAt ?? now, job.maxAttempts,
                    job.retryPolicy, job.timeoutMilliseconds, job.uniquePolicy == .allow ? nil : job.uniqueKey,
                    job.input, now, job.throttleIntervalMilliseconds, placement?.group.rawValue, placement?.position,
                    placement?.name, placement?.takesPreviousOutput ?? false, job.traceContext, job.partitionKey, orderKey,
                    job.version,
                ])
        else { throw DurableQueueError(.storage, "the job was not inserted: queue '\(job.queue)' has no row") }
        let id = JobID(inserted)
        if !job.tags.isEmpty {
            try await session.execute(
                "INSERT INTO job_tags (tag, job_id) SELECT DISTINCT unnest($1::text[]), $2", [job.tags, inserted])
        }
        return replacing.map { .replaced(id, replacing: $0) } ?? .inserted(id)
    }

    /// The order key of a new job of `key` on `queue` if the queue is fair (``FairOrder/tag(virtualTime:lastTag:)``),
    /// recorded as the key's last tag (its row locked until the transaction ends); nil otherwise.
    private func fairTag(_ session: PostgresSession, queue: String, key: String) async throws -> Int64? {
        guard let row = try await session.rows("SELECT fairness, fair_time FROM queues WHERE name = $1", [queue]).first,
            try row.string(0) == Fairness.byKey.rawValue
        else { return nil }
        let lastTag = try await session.int64(
            "SELECT last_tag FROM partition_keys WHERE queue = $1 AND key = $2 FOR UPDATE", [queue, key])
        let tag = FairOrder.tag(virtualTime: try row.int64(1), lastTag: lastTag)
        try await session.execute(
            """
            INSERT INTO partition_keys (queue, key, last_tag) VALUES ($1, $2, $3)
            ON CONFLICT (queue, key) DO UPDATE SET last_tag = excluded.last_tag
            """, [queue, key, tag])
        return tag
    }

    /// The condition under which a job holds its unique key: the WHERE of idx_jobs_unique_key.
    static let holdsUniqueKey = """
        unique_key IS NOT NULL AND cancel_requested = 0 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
        """
}

extension PostgresJobStore {
    /// Gives job `id` (locked, holding `job`'s key) `job`'s input (with its version) and run time if it still waits
    /// (scheduled or pending), with a history row; a running or blocked job is left as it is.
    fileprivate func debounce(_ session: PostgresSession, _ id: JobID, with job: NewJob, now: Int64) async throws {
        // One statement: the row still waits (`$7`), then its change and its history row.
        let change = UniqueKeyRule.debounce(runAt: job.runAt, now: now)
        try await session.execute(
            """
            WITH old AS (SELECT state, attempts FROM jobs WHERE id = $1 AND state = ANY($7::text[])),
            changed AS (
                UPDATE jobs SET input = $2::jsonb, version = $8, run_at = $3, state = $4, updated_at = $5
                WHERE id = $1 AND state = ANY($7::text[])
            )
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
            SELECT $1, $5, old.state, $4, old.attempts, $6 FROM old
            """,
            [
                id.rawValue, job.input, change.runAt, change.state.rawValue, now, change.reason,
                UniqueKeyRule.debouncedStates.map(\.rawValue), job.version,
            ])
    }
}
