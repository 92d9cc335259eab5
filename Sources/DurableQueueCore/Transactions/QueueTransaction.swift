import Foundation

/// The application's own statements and jobs, committed together in one transaction of the
/// queue's database: see ``JobQueue/transaction(_:)``.
///
/// Valid only inside the closure that receives it; using it afterwards throws.
public final class QueueTransaction {
    private let store: any AppTransaction
    private let now: Int64
    private let traceContext: String?
    /// Where paths in inputs are stored relative to.
    private let files: FileLocations
    private var isOpen = true
    /// Whether any job was enqueued (the engine is told after the commit).
    private(set) var enqueuedJobs = false

    init(store: any AppTransaction, now: Int64, traceContext: String?, files: FileLocations) {
        self.files = files
        self.store = store
        self.now = now
        self.traceContext = traceContext
    }

    /// Runs one statement of your SQL with `arguments` bound to its parameters; returns how many
    /// rows it changed. Values are always bound, never put into the SQL text.
    ///
    /// Parameters are written the same way on every store: `?` (the next one), or `?1`/`$1` (the
    /// first argument), rewritten into the store's own form, so one job body runs on SQLite and
    /// on PostgreSQL. Inside literals, quoted names and comments nothing is rewritten. On
    /// PostgreSQL a `?` is always a parameter: write jsonb's `?`, `?|` and `?&` operators as
    /// `jsonb_exists`, `jsonb_exists_any` and `jsonb_exists_all`.
    ///
    /// - Throws: ``DurableQueueError`` with the database's message when the statement fails (the
    ///   whole transaction then rolls back if you let the error out of the closure); `invalidArgument`
    ///   for text holding more than one statement.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        try checkOpen()
        return try store.execute(sql, arguments)
    }

    /// Runs one statement of your SQL with `arguments` bound; returns its rows, each a list of
    /// column values.
    public func query(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
        try checkOpen()
        return try store.query(sql, arguments)
    }

    /// Enqueues a job in this transaction: workers see it only once the transaction commits, and
    /// never if it rolls back.
    ///
    /// - Returns: The job's id (an existing job's, when its unique key keeps one).
    @discardableResult
    public func enqueue<J: Job>(_ type: J.Type, _ input: J.Input, options: EnqueueOptions = EnqueueOptions()) throws -> JobID {
        try checkOpen()
        let job = try options.newJob(J.self, input: try files.storedJSON(input), now: now, traceContext: traceContext)
        try job.validate()
        let outcome = try store.insert(job)
        enqueuedJobs = true
        return outcome.id
    }

    /// Ends the transaction's use: any later call throws.
    func close() { isOpen = false }

    private func checkOpen() throws {
        guard isOpen else {
            throw DurableQueueError.invalidArgument("transaction", "used after its closure returned: keep it inside the closure")
        }
    }
}
