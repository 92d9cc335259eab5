import DurableQueueCore

extension SQLiteJobStore {
    /// Runs `body`, one of the core's sequences, over ``SQLiteRows`` in one write transaction, on
    /// the store's queue (see ``JobStore/runSequence(_:now:notifying:_:)``): inline, as SQLite's row
    /// operations never wait (``runWithoutSuspending(_:)``).
    /// Every commit changes the file, which other processes watch: `notifying` changes nothing.
    package func runSequence<T: Sendable>(
        _ operation: String, now: Int64, notifying: Bool, _ body: @escaping @Sendable (any StoreRows, Int64) async throws -> T
    ) throws -> T {
        try write(operation, now: now) { now in
            let rows = SQLiteRows(store: self)
            return try runWithoutSuspending { try await body(rows, now) }
        }
    }
}
