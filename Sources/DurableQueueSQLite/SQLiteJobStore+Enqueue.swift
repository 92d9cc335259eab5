import DurableQueueCore

extension SQLiteJobStore {
    /// Inserts `job`, or applies its unique-key policy, in one transaction.
    ///
    /// Returns after the transaction is committed.
    ///
    /// - Parameter now: The current time in milliseconds since 1970.
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func enqueue(_ job: NewJob, now: Int64) throws -> EnqueueOutcome {
        try job.validate()
        return try write("enqueue a '\(job.kind)' job on queue '\(job.queue)'", now: now) { now in
            let outcome = try insert(job, now: now)
            try attachDependencies(of: [job], outcomes: [outcome], now: now)
            return outcome
        }
    }

    /// Attaches each inserted job's dependencies (``DependencySequences/attach(of:outcomes:in:now:)``),
    /// inside the write transaction under way; nothing to run for jobs that have none.
    func attachDependencies(of jobs: [NewJob], outcomes: [EnqueueOutcome], now: Int64) throws {
        guard jobs.contains(where: { !$0.dependencies.isEmpty }) else { return }
        let rows = SQLiteRows(store: self)
        try runWithoutSuspending { try await DependencySequences.attach(of: jobs, outcomes: outcomes, in: rows, now: now) }
    }

    /// Inserts every job of `jobs` in one transaction: all of them are committed, or none.
    ///
    /// - Returns: One outcome per job, in order.
    package func enqueue(batch jobs: [NewJob], now: Int64) throws -> [EnqueueOutcome] {
        for job in jobs { try job.validate() }
        return try write(jobs.count == 1 ? "enqueue a '\(jobs[0].kind)' job on queue '\(jobs[0].queue)'" : "enqueue \(jobs.count) jobs", now: now) { now in
            // The ids follow each other: read the counter once, not once per job.
            var next = try nextJobID()
            var outcomes: [EnqueueOutcome] = []
            outcomes.reserveCapacity(jobs.count)
            var index = jobs.startIndex
            // A fair queue's job takes its key's next tag: inserted on its own. Jobs of a batch
            // mostly share a queue: its fairness is looked up again only when the queue changes
            // (a set of the batch's queues cost a lone enqueue 3 % of its instructions).
            var lastQueue: (name: String, fair: Bool)?
            func insertedAlone(_ job: NewJob) throws -> Bool {
                guard Self.insertsWithoutLookup(job) else { return true }
                if let lastQueue, lastQueue.name == job.queue { return lastQueue.fair }
                let fair = try insertSettings(ofQueue: job.queue, now: now).fair
                lastQueue = (job.queue, fair)
                return fair
            }
            while index < jobs.endIndex {
                // A run of jobs without unique keys goes in multi-row statements; a job with one
                // is looked up and inserted on its own, after the jobs before it. A lone job is
                // inserted on its own.
                let runEnd = jobs.count == 1 ? index : try jobs[index...].firstIndex(where: insertedAlone) ?? jobs.endIndex
                if runEnd > index {
                    let after = try insertRows(jobs[index..<runEnd], firstID: next, now: now)
                    outcomes += (next..<after).map { .inserted(JobID($0)) }
                    next = after
                    index = runEnd
                } else {
                    let outcome = try insert(jobs[index], now: now, id: next)
                    if case .existing = outcome {} else { next += 1 }
                    outcomes.append(outcome)
                    index += 1
                }
            }
            try attachDependencies(of: jobs, outcomes: outcomes, now: now)
            return outcomes
        }
    }

    /// What an insert takes from its queue's row.
    struct QueueInsertSettings {
        /// Whether the queue runs its newest job first: the job's order key is then minus its id.
        let lifo: Bool
        /// The throttle interval of a job that sets none.
        let throttleInterval: Int64
        /// Whether keys take turns: a job's order key is its fair tag (``FairOrder``).
        let fair: Bool

        /// The throttle interval `job` keeps after it runs, and whether the job set it (rather
        /// than its queue: `job_options.throttle_interval_source`).
        func throttle(of job: NewJob) -> (interval: Int64, setByJob: Bool) {
            if let own = job.throttleIntervalMilliseconds { return (own, true) }
            return (throttleInterval, false)
        }
    }

    /// Inserts `job` with its tags, or applies its unique-key policy. A job placed in a group starts
    /// `blocked` until the group lets it run. The row records the job's creation (`created_at`,
    /// `created_state`), which the history shows as its first event: no event row is written.
    ///
    /// - Parameter id: The id to give the job: ``nextJobID()``'s, which the caller has read in this
    ///   transaction; nil reads it here.
    func insert(_ job: NewJob, now: Int64, placement: GroupPlacement? = nil, id: Int64? = nil) throws -> EnqueueOutcome {
        let queue = try insertSettings(ofQueue: job.queue, now: now)
        var replacing: JobID?
        if let key = job.uniqueKey, job.uniquePolicy != .allow {
            if let existing = try activeJob(uniqueKey: key) {
                switch UniqueKeyRule.action(for: job.uniquePolicy) {
                case .keep:
                    return .existing(existing)
                case .debounce:
                    try debounce(existing, with: job, now: now)
                    return .existing(existing)
                case .replace:
                    _ = try requestCancel(existing, now: now, reason: UniqueKeyRule.replacedReason)
                    replacing = existing
                }
            } else if let window = job.uniqueWindowMilliseconds, let recent = try newestJob(uniqueKey: key, createdSince: now - window) {
                return .existing(recent)
            }
        }
        let state = job.initialState(inGroup: placement != nil, now: now)
        let throttle = queue.throttle(of: job)
        let inserted = try id ?? nextJobID()
        let orderKey = queue.fair ? try fairTag(queue: job.queue, key: FairOrder.key(of: job.partitionKey)) : queue.lifo ? -inserted : inserted
        // The id is chosen here (the write lock is held) so that the order key can be derived from
        // it: the id on a FIFO queue, minus the id on a LIFO queue.
        let commit = try commitNumber(changesJobs: false)
        // A job of version 1 (most) leaves the column to its default: binding it cost every insert.
        let options = JobOptionsRow(of: job, throttle: throttle)
        try connection.execute(job.version == 1 ? Self.insertStatement : Self.versionedInsertStatement) { binder in
            binder.bind(inserted)
            binder.bind(job.queue)
            binder.bind(job.kind)
            binder.bind(state.staticText)
            binder.bind(job.priority.rawValue)
            binder.bind(job.runAt ?? now)
            binder.bind(job.maxAttempts)
            binder.bind(job.uniquePolicy == .allow ? nil : job.uniqueKey)
            binder.bind(job.input)
            binder.bind(now)
            binder.bind(placement?.group.rawValue)
            binder.bind(placement?.position)
            binder.bind(placement?.name)
            binder.bind(placement?.takesPreviousOutput ?? false)
            binder.bind(job.partitionKey)
            binder.bind(orderKey)
            binder.bind(commit)
            binder.bind(options == nil ? 0 : JobExtras.options.rawValue)
            if job.version != 1 { binder.bind(job.version) }
        }
        if let options { try insertOptions(options, of: inserted) }
        // Until this transaction commits, the next id is the one after this job's.
        knownNextID = nil
        nextIDAfterInserts = max(nextIDAfterInserts ?? 0, inserted + 1)
        let id = JobID(inserted)
        try insertTags(job.tags, of: inserted)
        return replacing.map { .replaced(id, replacing: $0) } ?? .inserted(id)
    }

    /// The order key of a new job of `key` on fair queue `queue` (``FairOrder/tag(virtualTime:lastTag:)``),
    /// recorded as the key's last tag.
    private func fairTag(queue: String, key: String) throws -> Int64 {
        let virtualTime = try connection.scalarInt64("SELECT fair_time FROM queues WHERE name = ?", [queue]) ?? 0
        let lastTag = try connection.scalarInt64("SELECT last_tag FROM partition_keys WHERE queue = ? AND key = ?", [queue, key])
        let tag = FairOrder.tag(virtualTime: virtualTime, lastTag: lastTag)
        try connection.execute(
            """
            INSERT INTO partition_keys (queue, key, last_tag) VALUES (?1, ?2, ?3)
            ON CONFLICT (queue, key) DO UPDATE SET last_tag = excluded.last_tag
            """, [queue, key, tag])
        return tag
    }

    /// Tags job `id` with `tags`, each once.
    func insertTags(_ tags: [String], of id: Int64) throws {
        guard !tags.isEmpty else { return }  // most jobs have none: no set to build
        for tag in Set(tags) {
            try connection.execute("INSERT INTO job_tags (tag, job_id) VALUES (?, ?)", [tag, id])
        }
    }

    /// The settings an insert takes from queue `name`, whose row is created with the defaults if
    /// it has none. Read once and then known while nobody else writes to the file (see
    /// ``knownQueueSettings``): reading them in the insert statement was a twentieth of an enqueue's
    /// instructions.
    func insertSettings(ofQueue name: String, now: Int64) throws -> QueueInsertSettings {
        if let known = knownQueueSettings.settings(of: name) { return known }
        try ensureQueueExists(name, now: now)
        var settings = QueueInsertSettings(lifo: false, throttleInterval: 0, fair: false)
        try connection.query("SELECT mode, throttle_interval_ms, fairness FROM queues WHERE name = ?", [name]) { row in
            settings = QueueInsertSettings(
                lifo: row.string(0) == QueueMode.lifo.rawValue, throttleInterval: row.int64(1),
                fair: row.string(2) == Fairness.byKey.rawValue)
        }
        knownQueueSettings.remember(settings, of: name)
        return settings
    }

    /// The insert of a job of version 1: `?1`…`?15` its columns, `?16` its order key, `?17` the
    /// commit number and `?18` its ``JobExtras``.
    private static let insertStatement = insert(version: "")

    /// ``insertStatement`` for a job of another version, `?19`.
    private static let versionedInsertStatement = insert(version: "?19")

    /// The text of an insert of a job whose version is `version` (SQL), or the column's default when empty.
    private static func insert(version: String) -> String {
        """
        INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, unique_key, input,
                          created_at, updated_at, group_id, group_position, step_name, takes_previous_output,
                          partition_key, created_state, created_tx, extras\(version.isEmpty ? "" : ", version"))
        VALUES (?1, ?2, ?3, ?4, ?5, ?16, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12, ?13, ?14, ?15, ?4, ?17,
                ?18\(version.isEmpty ? "" : ", " + version))
        """
    }

    /// The id the next inserted job gets: one more than the largest in the table or in
    /// `job_id_floor` (the largest of a deleted job, kept by a trigger), so ids are never reused.
    ///
    /// Known without a read after this store's own commits while no other connection has written
    /// to the file: the read was a twentieth of an enqueue's instructions.
    func nextJobID() throws -> Int64 {
        if let known = knownNextID, known.dataVersion == (try connection.dataVersion) { return known.id }
        return try connection.scalarInt64("SELECT max(coalesce((SELECT max(id) FROM jobs), 0), (SELECT id FROM job_id_floor)) + 1") ?? 1
    }

    /// The condition under which a job holds its unique key: it is active and no cancel was
    /// requested. The store keeps a key to one such job by looking it up (through
    /// idx_jobs_unique_key, which no change of state touches) in the transaction that inserts.
    static let holdsUniqueKey = """
        unique_key IS NOT NULL AND cancel_requested = 0
              AND (state = 'scheduled' OR state = 'pending' OR state = 'blocked' OR state = 'running' OR state = 'handed_off'
                   OR state = 'waiting')
        """

    /// The active job holding unique key `key`, found through idx_jobs_unique_key.
    private func activeJob(uniqueKey key: String) throws -> JobID? {
        try connection.scalarInt64(
            """
            SELECT id FROM jobs WHERE unique_key = ? AND \(Self.holdsUniqueKey)
            """, [key]
        ).map { JobID($0) }
    }

    /// The newest job with unique key `key` created after `since`, finished or not.
    private func newestJob(uniqueKey key: String, createdSince since: Int64) throws -> JobID? {
        try connection.scalarInt64(Self.newestWithKeyStatement, [key, since]).map { JobID($0) }
    }

    /// The newest job with key `?1` created after `?2`: a search of idx_jobs_unique_key.
    static let newestWithKeyStatement = """
        SELECT id FROM jobs WHERE unique_key = ?1 AND created_at > ?2 ORDER BY created_at DESC LIMIT 1
        """

    /// Gives job `id`, which holds `job`'s key, `job`'s input and run time if it still waits
    /// (scheduled or pending), with a history row; a running or blocked job is left as it is.
    ///
    /// The history row is numbered from the row read first, and the UPDATE raises the count: raising
    /// it in an `UPDATE … RETURNING` of its own cost more than the rest of the change.
    private func debounce(_ id: JobID, with job: NewJob, now: Int64) throws {
        guard let waiting = try stateRow(id), let change = UniqueKeyRule.debounce(state: waiting.state, runAt: job.runAt, now: now)
        else { return }
        try connection.execute(
            """
            UPDATE jobs SET input = ?2, version = ?6, run_at = ?3, state = ?4, updated_at = ?5, event_count = event_count + 1
            WHERE id = ?1
            """,
            [id.rawValue, job.input, change.runAt, change.state.rawValue, now, job.version])
        try appendEvents([
            EventRow(
                job: id, at: now, from: waiting.state, to: change.state, attempt: waiting.attempts, reason: change.reason, worker: nil,
                seq: waiting.eventCount + 1)
        ])
    }

    /// Creates the queue's row with default settings unless it exists.
    func ensureQueueExists(_ name: String, now: Int64) throws {
        guard !knownQueues.contains(name) else { return }
        queueSettingsChanged()
        try connection.execute(
            "INSERT INTO queues (name, created_at, updated_at) VALUES (?1, ?2, ?2) ON CONFLICT (name) DO NOTHING",
            [name, now])
        knownQueues.insert(name)
    }
}
