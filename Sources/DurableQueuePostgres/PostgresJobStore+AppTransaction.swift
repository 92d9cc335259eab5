import DurableQueue
import Foundation
import PostgresNIO
import Synchronization

extension PostgresJobStore {
    /// Runs the application's transaction in one database transaction on one connection.
    ///
    /// `body` is synchronous (the same API as on SQLite), so it runs on a thread of its own, never
    /// a cooperative one: each of its statements waits there while the connection runs it. Its
    /// own errors are rethrown as they are; a failed statement (including a deadlock or
    /// serialization failure, code `databaseLocked`) throws ``DurableQueueError``, and the whole
    /// transaction rolls back.
    package func transaction<T: Sendable>(
        now: Int64, _ body: @escaping @Sendable (any AppTransaction, Int64) throws -> T
    ) async throws -> T {
        do {
            return try await write("run the application's transaction") { [self] session in
                // Its locks come from the application's SQL: the time read as the transaction begins.
                let now = stamp(now)
                return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                    let thread = Thread { [self] in
                        let transaction = PostgresAppTransaction(store: self, session: session, now: now)
                        do {
                            continuation.resume(returning: try body(transaction, now))
                        } catch let error as DurableQueueError {
                            continuation.resume(throwing: error)
                        } catch {
                            continuation.resume(throwing: ApplicationFailure(error: error))
                        }
                    }
                    thread.name = "DurableQueue application transaction"
                    thread.start()
                }
            }
        } catch let error as DurableQueueError {
            if let failure = error.underlying as? ApplicationFailure { throw failure.error }
            throw error
        }
    }

    /// Runs one statement of the application's SQL in `session`'s transaction.
    fileprivate func runApplicationStatement(
        _ session: PostgresSession, _ sql: String, _ arguments: [SQLValue]
    ) async throws -> (changes: Int, rows: [[SQLValue]]) {
        do {
            let (rows, changes) = try await session.rowsAndCount(SQLPlaceholders.rewrite(sql, to: .dollar), arguments.map(\.postgresValue))
            return (changes, try rows.map { row in try (0..<row.cells.count).map { try Self.value(row.cells[$0]) } })
        } catch let error as DurableQueueError {
            throw error
        } catch {
            throw Self.mapped(error, operation: "run the statement `\(sql.prefix(200))`", location: location)
        }
    }

    /// A cell as a ``SQLValue``: numbers, booleans (as 1 or 0), bytes, and anything text-like.
    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: return .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
        default:
            guard let text = try? cell.decode(String.self) else {
                throw DurableQueueError.invalidArgument(
                    "column \(cell.columnName)", "its type (\(cell.dataType)) has no SQLValue: cast it to text in the query")
            }
            return .text(text)
        }
    }
}

/// An error the application's closure threw, carried through the store's error mapping unchanged.
private struct ApplicationFailure: Error {
    let error: any Error
}

/// The application's side of a PostgreSQL transaction: each call waits on the application's
/// thread while the connection runs it.
private final class PostgresAppTransaction: AppTransaction {
    let store: PostgresJobStore
    let session: PostgresSession
    let now: Int64

    init(store: PostgresJobStore, session: PostgresSession, now: Int64) {
        self.store = store
        self.session = session
        self.now = now
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try wait { [store, session] in try await store.runApplicationStatement(session, sql, arguments).changes }
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        try wait { [store, session] in try await store.runApplicationStatement(session, sql, arguments).rows }
    }

    func insert(_ job: NewJob) throws -> EnqueueOutcome {
        try wait { [store, session, now] in
            do {
                let outcome = try await store.insert(session, job, now: now)
                try await store.attachDependencies(session, of: [job], outcomes: [outcome], now: now)
                return outcome
            } catch let error as DurableQueueError {
                throw error
            } catch {
                throw PostgresJobStore.mapped(error, operation: "enqueue a '\(job.kind)' job", location: store.location)
            }
        }
    }

    func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) throws -> Bool {
        try wait { [store, session] in
            do {
                return try await store.recordStep(session, step, attempt: attempt, owner: owner)
            } catch let error as DurableQueueError {
                throw error
            } catch {
                throw PostgresJobStore.mapped(error, operation: "record step '\(step.name)'", location: store.location)
            }
        }
    }

    /// Runs `operation` and blocks this (the application's own) thread until it is done.
    private func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await operation())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}

extension SQLValue {
    /// The value as a statement parameter.
    fileprivate var postgresValue: (any PostgresValue)? {
        switch self {
        case .null: nil
        case .integer(let value): value
        case .real(let value): value
        case .text(let value): value
        case .blob(let value): PostgresBytes(value)
        }
    }
}
