extension JobQueue {
    /// Runs `body` in one transaction of the queue's database, so that your own rows and the jobs
    /// they need commit together or not at all (the outbox pattern): a receipt is sent exactly for
    /// the orders that were saved.
    ///
    /// ```swift
    /// try await queue.transaction { tx in
    ///     try tx.execute("INSERT INTO orders (id, total) VALUES (?, ?)", [.text(order.id), .integer(order.total)])
    ///     try tx.enqueue(SendReceipt.self, ReceiptInput(order: order.id))
    /// }
    /// ```
    ///
    /// Your tables live in the same SQLite file (or PostgreSQL schema, reached by its search path)
    /// as the queue's. Values are bound to the statement's parameters (`?`, `?1` or `$1`, the same
    /// on both stores: see ``QueueTransaction/execute(_:_:)``), never put into its text. Workers see the jobs only after the commit. If `body`
    /// throws, everything it did is rolled back and the error is rethrown. `body` is synchronous:
    /// the transaction holds the database's write lock (SQLite) or a connection (PostgreSQL) while
    /// it runs, so keep network calls and other waits out of it.
    ///
    /// - Returns: What `body` returned, once committed.
    /// - Throws: what `body` throws; ``DurableQueueError`` when a statement fails (with the
    ///   database's message) or the commit does.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (QueueTransaction) throws -> T) async throws -> T {
        try await transaction { transaction, _, _ in try body(transaction) }
    }

    /// ``transaction(_:)`` whose body also gets the store's side of the transaction and its time,
    /// for what the queue itself writes in it (a durable step's record).
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (QueueTransaction, any AppTransaction, Int64) throws -> T
    ) async throws -> T {
        let traceContext = callersTraceContext
        let files = files
        let (result, enqueuedJobs) = try await store.transaction(now: now) { store, now in
            let transaction = QueueTransaction(store: store, now: now, traceContext: traceContext, files: files)
            defer { transaction.close() }
            return (try body(transaction, store, now), transaction.enqueuedJobs)
        }
        if enqueuedJobs { enqueued() }
        return result
    }
}
