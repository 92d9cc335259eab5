import DurableQueueCore

extension SQLiteJobStore {
    /// Runs the application's transaction on the store's queue (never inline: its statements may
    /// take long) in one write transaction: `BEGIN IMMEDIATE`, `body`, `COMMIT`, or `ROLLBACK` when
    /// `body` throws, whose error is rethrown as it is.
    package nonisolated func transaction<T: Sendable>(
        now: Int64, _ body: @escaping @Sendable (any AppTransaction, Int64) throws -> T
    ) async throws -> T {
        try await runApplicationTransaction(now: now, body)
    }

    private func runApplicationTransaction<T: Sendable>(now: Int64, _ body: @Sendable (any AppTransaction, Int64) throws -> T) throws -> T {
        var applicationError: (any Error)?
        // The application's SQL may write anything: what the store knows of the file is read again.
        defer { forgetWhatIsKnownOfTheFile() }
        do {
            return try write("run the application's transaction", now: now) { now in
                do {
                    return try body(SQLiteAppTransaction(store: self, now: now), now)
                } catch let error as DurableQueueError {
                    throw error
                } catch {
                    applicationError = error
                    throw error
                }
            }
        } catch {
            throw applicationError ?? error
        }
    }

    /// Runs one statement of the application's SQL inside the open transaction.
    fileprivate func runApplicationStatement(_ sql: String, _ arguments: [SQLValue]) throws -> (changes: Int, rows: [[SQLValue]]) {
        var rows: [[SQLValue]] = []
        do {
            try connection.runApplicationStatement(SQLPlaceholders.rewrite(sql, to: .question), arguments) { row in
                rows.append((0..<row.columnCount).map(row.value))
            }
        } catch let error as SQLiteError {
            throw Self.mapped(error, operation: "run the statement `\(sql.prefix(200))`", path: path, busyTimeout: options.busyTimeout)
        }
        return (try connection.changes, rows)
    }
}

/// The application's side of a SQLite write transaction: called synchronously from within it, on
/// the store's queue, so each call runs isolated to the store.
private final class SQLiteAppTransaction: AppTransaction {
    let store: SQLiteJobStore
    let now: Int64

    init(store: SQLiteJobStore, now: Int64) {
        self.store = store
        self.now = now
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try store.assumeIsolated { store in try store.runApplicationStatement(sql, arguments).changes }
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        try store.assumeIsolated { store in try store.runApplicationStatement(sql, arguments).rows }
    }

    func insert(_ job: NewJob) throws -> EnqueueOutcome {
        let now = now
        return try store.assumeIsolated { store in
            let outcome = try store.insert(job, now: now)
            try store.attachDependencies(of: [job], outcomes: [outcome], now: now)
            return outcome
        }
    }

    func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) throws -> Bool {
        try store.assumeIsolated { store in try store.recordStepInTransaction(step, attempt: attempt, owner: owner) }
    }
}
