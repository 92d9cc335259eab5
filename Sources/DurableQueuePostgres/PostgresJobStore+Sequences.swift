import DurableQueue

extension PostgresJobStore {
    /// Runs `body`, one of the core's sequences, over ``PostgresRows`` in one transaction (see
    /// ``JobStore/runSequence(_:now:notifying:_:)``).
    package func runSequence<T: Sendable>(
        _ operation: String, now: Int64, notifying: Bool, _ body: @escaping @Sendable (any StoreRows, Int64) async throws -> T
    ) async throws -> T {
        try await write(operation, notify: notifying, now: now) { [self] session, now in
            try await body(PostgresRows(store: self, session: session), now)
        }
    }
}
