import DurableQueue
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Jobs in a PostgreSQL database that workers on many machines share: the ``JobStore`` of
/// `JobQueue(postgres:)`.
///
/// The tables, columns, text states and millisecond times are the SQLite file's (see the
/// `Migrations` folder), so `psql` shows what `sqlite3` shows. Each method is one transaction. Claims
/// walk a queue's pending jobs in index order with `FOR NO KEY UPDATE SKIP LOCKED`; a queue with a
/// concurrency limit, throttle or rate limit is serialised across nodes by a transaction-level
/// advisory lock taken before counting.
///
/// A row that a foreign key references (of `jobs`, `groups`, `queues`) is locked `FOR NO KEY
/// UPDATE`, never `FOR UPDATE`, unless the transaction deletes it: a foreign-key check's
/// `FOR KEY SHARE` then never waits for it. Such a check runs where a transaction updates a job
/// row it changed before (a claim of a job it promoted checks the job's group and queue), and a
/// claim holding its queue's advisory lock that waited there for an ending holding the group's
/// row, itself waiting for that advisory lock, was a deadlock. Every write that may interest another node sends a
/// notification inside its transaction; one connection listens, so waiting engines and handles
/// wake at once, and poll when it is down.
package final class PostgresJobStore: JobStore {
    /// The database and schema, for messages (never the password).
    package let location: String
    /// Where the tables live.
    let schema: String
    /// Fails calls that wait for the server longer than ``PostgresStorage/callTimeout``.
    private let watchdog: CallWatchdog
    /// The notification channel of this schema.
    package let channel: String
    let client: PostgresClient
    /// The one event loop of the client's connections, on which the engine's tasks run.
    let executor: EventLoopTaskExecutor
    package var preferredTaskExecutor: (any TaskExecutor)? { executor }
    let logger: Logger
    /// Runs the client's pool and the listener until the store is released.
    private let background: Task<Void, Never>
    let changes: ChangeFeed
    /// Queues known to have a row, so that enqueue skips creating them.
    let knownQueues = Mutex<Set<String>>([])
    /// The database's clock, which leases and schedules follow on every node.
    package let clock: DatabaseClock
    /// The clock a transaction reads as it runs, and again once it holds the locks its decisions
    /// need (``stamp(_:)``).
    let transactionClock = TransactionClock()

    /// Makes every later transaction stamp its rows, and take its decisions, at the time it reads
    /// from `clock` (see ``TransactionClock``).
    package func stampTimes(with clock: any TimeSource) {
        transactionClock.use(clock)
    }

    /// The time of a transaction that now holds the locks its decisions need: a claim stamps after
    /// its queue's lock, an ending after its jobs' rows are locked, so that the history shows each
    /// change after every change committed before it.
    func stamp(_ requested: Int64) -> Int64 { transactionClock.stamp(requested) }

    /// Connects to `storage`, creates its schema if missing and migrates it to the newest version.
    ///
    /// - Throws: ``DurableQueueError``: `invalidArgument` for a bad setting, `cannotOpen` when the
    ///   server cannot be reached or refuses the login, `schemaTooNew` for a schema a newer version
    ///   wrote.
    package init(_ storage: PostgresStorage, logger: Logger = Logger(label: "DurableQueue.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        async throws
    {
        try storage.validate()
        self.location = storage.location
        self.schema = storage.schema
        self.channel = "durablequeue_\(storage.schema.lowercased())"
        self.watchdog = CallWatchdog(timeout: storage.callTimeout)
        self.logger = logger
        let executor = EventLoopTaskExecutor(MultiThreadedEventLoopGroup.singleton.next())
        self.executor = executor
        let client = PostgresClient(configuration: storage.clientConfiguration, eventLoopGroup: executor.loop, backgroundLogger: logger)
        self.client = client
        let changes = ChangeFeed()
        self.changes = changes
        let channel = channel
        let listenerConfiguration = try storage.connectionConfiguration()
        background = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask {
                    await changes.listen(channel: channel, logger: logger) {
                        try await PostgresConnection.connect(configuration: listenerConfiguration, id: 0, logger: logger)
                    }
                }
            }
        }
        do {
            try await storage.probe(logger: logger)
            try await PostgresMigrator.migrate(client: client, schema: storage.schema, logger: logger)
            clock = try await DatabaseClock.measure(client: client, logger: logger)
        } catch {
            background.cancel()
            let mapped = Self.mapped(error, operation: "open the job database", location: storage.location)
            // Whatever kept the store from opening (no server, no database, a refused login) is why it cannot open.
            throw DurableQueueError(.cannotOpen, mapped.message, path: mapped.path)
        }
    }

    deinit {
        background.cancel()
    }

    /// How many times a transaction that lost a serialization race or a deadlock runs again.
    private static let raceRetries = 20

    /// ``write(_:notify:transaction:_:)`` whose `body` gets the transaction's time: the store's clock
    /// read as the transaction runs (a call may wait for a pooled connection first), or `requested`
    /// if that is later. A sequence that then locks the rows its decisions need reads it again
    /// (``stamp(_:)``).
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, notify: Bool = true, transaction: Bool = true, now requested: Int64,
        _ body: @escaping @Sendable (PostgresSession, Int64) async throws -> T
    ) async throws -> T {
        try await write(operation(), notify: notify, transaction: transaction) { [self] session in
            try await body(session, stamp(requested))
        }
    }

    /// Runs `body` in a transaction and commits it; a transaction that lost a race with another
    /// (a deadlock, a serialization failure, a unique key taken meanwhile) runs again from the start.
    ///
    /// - Parameters:
    ///   - operation: What is being done, in words, for the error message.
    ///   - notify: Whether to tell the listening nodes that something changed, in the transaction.
    ///   - transaction: false for a `body` whose statements each stand alone (one statement, or
    ///     statements that may commit one by one): they run without `BEGIN` and `COMMIT`.
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, notify: Bool = true, transaction: Bool = true,
        _ body: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        let operation = operation()
        // A call finishes what it began even when its caller's task is cancelled (a shutdown gives
        // running jobs back from a cancelled task): the pool refuses connections to cancelled tasks.
        return try await bounded(operation) { [self] in try await runWrite(operation, notify: notify, transaction: transaction, body) }
    }

    /// `call`'s value, run in a task of its own (it finishes what it began even when its caller's
    /// task is cancelled), or a storage error once ``PostgresStorage/callTimeout`` passed without
    /// it: a query whose connection died as the server crashed was seen never to hear back. The
    /// call is then left to end by itself; what it writes is fenced as every write is. The task
    /// starts on the caller's thread and prefers the connections' event loop (``executor``): its
    /// statements and their replies then cost no hand-off between threads.
    private func bounded<T: Sendable>(_ operation: String, _ call: @escaping @Sendable () async throws -> T) async throws -> T {
        let watchdog = watchdog
        let executor = executor
        let location = location
        let logger = logger
        let answered = FirstAnswer()
        return try await withCheckedThrowingContinuation { continuation in
            // A call that waits long is logged while it waits: what the engine waits for shows.
            let token = watchdog.watch(reportingSlow: { waited in
                logger.info("no answer yet from the database server to '\(operation)' after \(waited.milliseconds) ms; still waiting")
            }) {
                guard answered.claim() else { return }
                continuation.resume(
                    throwing: DurableQueueError(
                        .storage, "could not \(operation): no answer from the database server within \(watchdog.timeout)", path: location))
            }
            let run: @Sendable () async -> Void = {
                let result: Result<T, any Error>
                do { result = .success(try await call()) } catch { result = .failure(error) }
                watchdog.finished(token)
                guard answered.claim() else { return }
                continuation.resume(with: result)
            }
            if startOnThisThread(preferring: executor, run) == nil {
                Task(executorPreference: executor, operation: run)
            }
        }
    }

    private func runWrite<T: Sendable>(
        _ operation: String, notify: Bool, transaction: Bool, _ body: @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await client.withConnection { connection in
                    let session = PostgresSession(connection: connection, logger: logger)
                    guard transaction else {
                        let result = try await body(session)
                        if notify { try await session.execute("SELECT pg_notify($1, '')", [channel]) }
                        return result
                    }
                    try await session.execute("BEGIN")
                    do {
                        let result = try await body(session)
                        if notify { try await session.execute("SELECT pg_notify($1, '')", [channel]) }
                        try await session.execute("COMMIT")
                        return result
                    } catch {
                        _ = try? await session.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch where Self.lostRace(error) && attempt < Self.raceRetries {
                attempt += 1
                knownQueues.withLock { $0.removeAll() }
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * attempt))))
            } catch {
                knownQueues.withLock { $0.removeAll() }
                throw Self.mapped(error, operation: operation, location: location)
            }
        }
    }

    /// Runs `body`'s reads on one connection (each statement sees what was committed when it began).
    func read<T: Sendable>(_ operation: @autoclosure () -> String, _ body: @escaping @Sendable (PostgresSession) async throws -> T)
        async throws -> T
    {
        let operation = operation()
        return try await bounded(operation) { [self] in
            do {
                return try await client.withConnection { connection in
                    try await body(PostgresSession(connection: connection, logger: logger))
                }
            } catch {
                throw Self.mapped(error, operation: operation, location: location)
            }
        }
    }

    /// Whether `error` says the transaction lost a race that running it again settles.
    private static func lostRace(_ error: any Error) -> Bool {
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
        // serialization_failure, deadlock_detected, unique_violation (a key taken by a concurrent commit).
        return state == "40001" || state == "40P01" || state == "23505"
    }

    /// The public error for `error`; a ``DurableQueueError`` passes through with the location added.
    static func mapped(_ error: any Error, operation: String, location: String) -> DurableQueueError {
        if var error = error as? DurableQueueError {
            if error.path == nil { error.path = location }
            return error
        }
        guard let error = error as? PSQLError else {
            return DurableQueueError(.storage, "could not \(operation)", path: location, underlying: error)
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "server error \(state)"
            let code: DurableQueueError.Code =
                switch state {
                case "40001", "40P01", "55P03": .databaseLocked
                case "25006": .readOnly
                case "3D000", "28000", "28P01", "42501": .cannotOpen
                case "XX001", "XX002": .corrupt
                default: .storage
                }
            return DurableQueueError(code, "could not \(operation): \(message)", path: location, underlying: nil)
        }
        let cause =
            switch error.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown:
                "the database server cannot be reached" + (error.underlying.map { " (\($0))" } ?? "")
            case .poolClosed, .clientClosedConnection: "the connection pool is closed"
            case .sslUnsupported: "the server does not offer TLS, which the configuration requires"
            case .authMechanismRequiresPassword: "the server asks for a password and none was given"
            default: "\(error.code)"
            }
        let code: DurableQueueError.Code = error.code == .sslUnsupported || error.code == .authMechanismRequiresPassword ? .cannotOpen : .storage
        return DurableQueueError(code, "could not \(operation): \(cause)", path: location, underlying: nil)
    }
}

extension PostgresStorage {
    /// The pool's configuration: as many connections as asked (the listener has its own).
    var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration =
            switch endpoint {
            case .tcp(let host, let port):
                PostgresClient.Configuration(
                    host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
            case .unixSocket(let path):
                PostgresClient.Configuration(unixSocketPath: path, username: username, password: password, database: database)
            }
        // The connection that listens for notifications is its own, outside the pool.
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(10)
        // One connection stays open while the store is: the pool times out only those above its
        // minimum, and arms that timeout on every return of a connection (a task per call: about
        // 50,000 instructions of an awaited enqueue's 350,000, callgrind). The others still close
        // after a minute unused.
        configuration.options.minimumConnections = 1
        // Quoted: the schema was created quoted, so its name keeps its case. Each statement is
        // planned once per connection (a generic plan, for any values): the store's statements are
        // written so that one plan serves every value (PostgresPlanTests reads both kinds), and
        // PostgreSQL's default chose a plan for each call's values of the statement that locks
        // ended jobs (`id = ANY($1)`: a generic plan is costed for ten ids, a custom one for the
        // one it gets), 275 µs of a 870 µs job one at a time (pg_stat_statements, track_planning).
        configuration.options.additionalStartupParameters = [
            ("search_path", "\"\(schema)\""), ("application_name", Self.applicationName),
            ("plan_cache_mode", "force_generic_plan"),
        ]
        return configuration
    }

    /// What `pg_stat_activity` shows as the connections' `application_name`: "DurableQueue pid 4242
    /// on web-2", so that an operator sees which process on which machine holds a connection (the
    /// server keeps the first 63 bytes).
    static let applicationName =
        "DurableQueue pid \(ProcessInfo.processInfo.processIdentifier) on \(LocalHost.name)"

    /// Connects once outside the pool and closes the connection: a wrong address, database or login
    /// fails at once with the server's own reason, where the pool would retry for a minute and then
    /// report only that it gave up.
    func probe(logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: try connectionConfiguration(), id: 0, logger: logger)
        try await connection.close()
    }

    /// A connection of its own, outside the pool, as the pool's are made (the schema first in the
    /// search path, the process in `application_name`).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration =
            switch endpoint {
            case .tcp(let host, let port):
                PostgresConnection.Configuration(
                    host: host, port: port, username: username, password: password, database: database, tls: try connectionTLS())
            case .unixSocket(let path):
                PostgresConnection.Configuration(unixSocketPath: path, username: username, password: password, database: database)
            }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = [
            ("search_path", "\"\(schema)\""), ("application_name", Self.applicationName),
        ]
        return configuration
    }

    private func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }
}

/// Which of two racers answers a continuation: the first to claim it.
private final class FirstAnswer: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// Whether this call is the first.
    func claim() -> Bool { claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }
}
