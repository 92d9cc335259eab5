import DurableQueueCore

extension SQLiteJobStore {
    /// Whether `job` can be inserted among others in one multi-row statement: it has no unique key
    /// to look up first (none, or one its policy allows to repeat, which is then not stored).
    static func insertsWithoutLookup(_ job: NewJob) -> Bool {
        job.uniqueKey == nil || job.uniquePolicy == .allow
    }

    /// Inserts `jobs`, each of which ``insertsWithoutLookup(_:)``, with the ids `firstID`,
    /// `firstID + 1`, …, in statements of up to ``rowsPerStatement`` rows, then their tags.
    ///
    /// One statement per row cost a batch a fifth of its instructions around the rows themselves:
    /// SQLite opens and closes a cursor on the table and each of its indexes for every statement.
    ///
    /// - Returns: The id after the last job's.
    func insertRows(
        _ jobs: ArraySlice<NewJob>, firstID: Int64, now: Int64
    ) throws -> Int64 {
        var id = firstID
        // Jobs of a batch mostly share a queue: its settings are looked up again only when it changes.
        var queue: (name: String, settings: QueueInsertSettings)?
        var start = jobs.startIndex
        let commit = try commitNumber(changesJobs: false)
        while start < jobs.endIndex {
            let end = min(start + Self.rowsPerStatement, jobs.endIndex)
            // Rows of version 1 (most) leave the column to its default: binding it cost every row.
            let versioned = jobs[start..<end].contains { $0.version != 1 }
            let statements = versioned ? Self.versionedRowInsertStatements : Self.rowInsertStatements
            // Each row's side row, if any, goes in after the rows: a job's options row refers to it.
            var options: [(id: Int64, row: JobOptionsRow)] = []
            try connection.execute(statements[end - start - 1]) { binder in
                binder.bind(commit)
                for index in start..<end {
                    let settings: QueueInsertSettings
                    if let last = queue, last.name == jobs[index].queue {
                        settings = last.settings
                    } else {
                        settings = try insertSettings(ofQueue: jobs[index].queue, now: now)
                        queue = (jobs[index].queue, settings)
                    }
                    let own = JobOptionsRow(of: jobs[index], throttle: settings.throttle(of: jobs[index]))
                    if let own { options.append((id, own)) }
                    Self.bindRow(jobs[index], id: id, hasOptions: own != nil, settings: settings, now: now, versioned: versioned, to: &binder)
                    id += 1
                }
            }
            for (id, row) in options { try insertOptions(row, of: id) }
            start = end
        }
        // Until this transaction commits, the next id is the one after these jobs'.
        knownNextID = nil
        nextIDAfterInserts = max(nextIDAfterInserts ?? 0, id)
        // By index: `for (offset, job) in jobs.enumerated()` copied every job out of the batch.
        for index in jobs.indices { try insertTags(jobs[index].tags, of: firstID + Int64(index - jobs.startIndex)) }
        return id
    }

    /// Binds the parameters of one row of ``rowInsertStatements`` (of ``versionedRowInsertStatements``
    /// when `versioned`): `job` with id `id`.
    private static func bindRow(
        _ job: NewJob, id: Int64, hasOptions: Bool, settings: QueueInsertSettings, now: Int64, versioned: Bool,
        to binder: inout ParameterBinder
    ) {
        let state = job.initialState(now: now)
        binder.bind(id)
        binder.bind(job.queue)
        binder.bind(job.kind)
        binder.bind(state.staticText)
        binder.bind(job.priority.rawValue)
        binder.bind(settings.lifo ? -id : id)
        binder.bind(job.runAt ?? now)
        binder.bind(job.maxAttempts)
        binder.bind(job.input)
        binder.bind(now)
        binder.bind(now)
        binder.bind(job.partitionKey)
        binder.bind(state.staticText)
        binder.bind(hasOptions ? JobExtras.options.rawValue : 0)
        if versioned { binder.bind(job.version) }
    }

    /// `INSERT INTO jobs` of 1 … ``rowsPerStatement`` jobs of version 1 without a unique key or a
    /// group, at the index one less than the count: `?1` the commit number, then each row's
    /// parameters, the columns' in order.
    private static let rowInsertStatements = rowInserts(versioned: false)

    /// ``rowInsertStatements`` with each row's version last.
    private static let versionedRowInsertStatements = rowInserts(versioned: true)

    /// The texts of ``rowInsertStatements``, or of ``versionedRowInsertStatements`` when `versioned`.
    private static func rowInserts(versioned: Bool) -> [String] {
        let columns = versioned ? 15 : 14
        return multiRowTexts(
            """
            INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, input, created_at,
                              updated_at, partition_key, created_state, extras, created_tx\(versioned ? ", version" : ""))
            VALUES\u{20}
            """
        ) { row in
            let first = 2 + columns * row
            let own = (first..<first + 14).map { "?\($0)" }.joined(separator: ", ")
            return "(" + own + ", ?1" + (versioned ? ", ?\(first + 14)" : "") + ")"
        }
    }
}
