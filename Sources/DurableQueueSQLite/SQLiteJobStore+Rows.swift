import DurableQueueCore

extension SQLiteJobStore {
    /// One row of `job_events`: a change of one job, to be written with others in one statement.
    struct EventRow {
        let job: JobID
        let at: Int64
        let from: JobState?
        let to: JobState
        let attempt: Int
        let reason: String?
        let worker: String?
        /// The row's number among the job's events (`seq`): the job's `event_count` after the
        /// UPDATE that raised it in this transaction, or nil when the change left the count as it
        /// was and ``appendEvents(_:)`` raises it.
        var seq: Int64? = nil
    }

    /// The most rows one multi-row statement takes; longer lists go in several.
    ///
    /// A statement per row cost about 3,000 instructions around SQLite's own work (cache lookup,
    /// binding, stepping, reset) and SQLite's start of each statement on top; a group commit of a
    /// few dozen claims and endings paid it for every row. The bound keeps the cached texts few.
    static let rowsPerStatement = 32

    /// Appends `events` to the history in their order, in as few statements as
    /// ``rowsPerStatement`` allows; called inside the transaction that made the changes.
    ///
    /// A row without its number gets the next of its job: the job's `event_count` is raised here.
    func appendEvents(_ events: [EventRow]) throws {
        var events = events
        for index in events.indices where events[index].seq == nil {
            events[index].seq = try raiseEventCount(of: events[index].job)
        }
        var start = events.startIndex
        while start < events.endIndex {
            let end = min(start + Self.rowsPerStatement, events.endIndex)
            let commit = try commitNumber(changesJobs: true)
            try connection.execute(Self.eventInsertStatements[end - start - 1]) { binder in
                binder.bind(commit)
                for event in events[start..<end] {
                    binder.bind(event.job.rawValue)
                    binder.bind(event.seq)
                    binder.bind(event.at)
                    binder.bind(event.from?.rawValue)
                    binder.bind(event.to.rawValue)
                    binder.bind(event.attempt)
                    binder.bind(event.reason)
                    binder.bind(event.worker)
                }
            }
            start = end
        }
    }

    /// Appends one row to the history; called inside the transaction that changed the job.
    func appendEvent(
        _ id: JobID, now: Int64, from: JobState?, to: JobState, attempt: Int, reason: String?, worker: String? = nil
    ) throws {
        try appendEvents([EventRow(job: id, at: now, from: from, to: to, attempt: attempt, reason: reason, worker: worker)])
    }

    /// Adds one to job `id`'s `event_count`, for a history row of a change whose UPDATE did not.
    /// - Returns: the new count, the row's `seq`.
    private func raiseEventCount(of id: JobID) throws -> Int64 {
        guard let count = try connection.scalarInt64(Self.raiseEventCountStatement, [id.rawValue]) else {
            throw DurableQueueError.jobNotFound(id)
        }
        return count
    }

    /// Raises job `?1`'s event count by one and returns it.
    private static let raiseEventCountStatement =
        "UPDATE jobs SET event_count = event_count + 1 WHERE id = ?1 RETURNING event_count"

    /// `INSERT INTO job_events` of 1 … ``rowsPerStatement`` rows (`?1` the commit number, then
    /// eight parameters a row), at the index one less than the count.
    private static let eventInsertStatements = multiRowTexts(
        "INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker, tx) VALUES "
    ) { row in
        let first = 2 + 8 * row
        return "(" + (first..<first + 8).map { "?\($0)" }.joined(separator: ", ") + ", ?1)"
    }

    /// The number that orders the rows of the write transaction under way in the file's commit
    /// order (`job_events.tx`, `jobs.created_tx`); nil until one of its rows needed it.
    ///
    /// Transactions that change jobs (they write history rows) are counted: each takes the next
    /// count, and its rows get twice it. A transaction that only creates jobs takes no count: its
    /// rows get twice the last count plus one, after the changes counted so far and before the
    /// next; transactions that only create jobs one after another share a number, and their jobs'
    /// ids follow their commits. Writers take the file's lock one at a time, so
    /// `ORDER BY tx, job_id, seq` is the order of the commits.
    ///
    /// The counts are handed out from blocks that the file reserves (`commit_counter.last_tx`, the
    /// end of the last block: no count passes it): a store that was the last to write knows the
    /// last count and its block without reading them (``knownCommitCounter``), and writes the
    /// counter only when it starts a block. Writing it in every transaction cost a job run one at
    /// a time a page of the file per commit (about a tenth of its rate). After another connection
    /// wrote, a store goes on from the end of that connection's block: the counts have gaps.
    ///
    /// - Parameter changesJobs: Whether the row needing it records a change of a job (a history
    ///   row), rather than a job's creation. A transaction that created jobs first and changes one
    ///   after takes a count from there on.
    func commitNumber(changesJobs: Bool) throws -> Int64 {
        if let number = transactionCommitNumber, !changesJobs || number % 2 == 0 { return number }
        var counter: (last: Int64, reserved: Int64)
        if let current = transactionCommitCounter {
            counter = current
        } else if let known = knownCommitCounter {
            counter = (known.last, known.reserved)
        } else {
            guard let reserved = try connection.scalarInt64(Self.commitCounterStatement) else {
                throw DurableQueueError(.corrupt, "the file's commit counter (table commit_counter) has no row")
            }
            counter = (reserved, reserved)
        }
        let number: Int64
        if changesJobs {
            counter.last += 1
            if counter.last > counter.reserved {
                counter.reserved = counter.last + Self.commitCountsReserved - 1
                try connection.execute(Self.reserveCommitCountsStatement, [counter.reserved])
            }
            number = 2 * counter.last
        } else {
            number = 2 * counter.last + 1
        }
        transactionCommitCounter = counter
        transactionCommitNumber = number
        return number
    }

    /// How many counts a store reserves at once (see ``commitNumber(changesJobs:)``).
    static let commitCountsReserved: Int64 = 1_024

    /// Reserves the commit counts up to `?1`: no `RETURNING`, for which SQLite builds a temporary
    /// table (that form cost an awaited enqueue half again its instructions: 91,794 → 140,899).
    private static let reserveCommitCountsStatement = "UPDATE commit_counter SET last_tx = ?1"

    /// The end of the last block of commit counts reserved.
    private static let commitCounterStatement = "SELECT last_tx FROM commit_counter"

    /// The texts of a statement of 1 … ``rowsPerStatement`` rows, at the index one less than the
    /// count: `head`, then `row(0)`, `row(1)` … separated by commas, then `tail`.
    ///
    /// Each is the longest one's beginning: joining the rows anew for every count cost as much as
    /// a thousand jobs' inserts, once per process.
    static func multiRowTexts(_ head: String, tail: String = "", row: (Int) -> String) -> [String] {
        var text = head
        var texts: [String] = []
        texts.reserveCapacity(rowsPerStatement)
        for index in 0..<rowsPerStatement {
            if index > 0 { text += ", " }
            text += row(index)
            texts.append(text + tail)
        }
        return texts
    }
}
