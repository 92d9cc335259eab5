import Foundation
import Logging
import Testing

import DurableQueue
import DurableQueuePostgres

/// A kind of store the conformance tests run against: every test of `Store/` and `Engine/` takes
/// one as its argument, so a new backend runs them all without copying any.
package struct StoreBackend: Sendable, CustomTestStringConvertible {
    package let name: String
    /// Where the store of a directory lives, as a worker process is told: a file, or a URL.
    package let location: @Sendable (TemporaryDirectory) async throws -> String
    /// A new, empty store whose files (if any) go in the directory.
    package let make: @Sendable (TemporaryDirectory) async throws -> any JobStore

    package var testDescription: String { name }

    /// One SQLite file.
    package static let sqlite = StoreBackend(name: "SQLite", location: { $0.path("jobs.sqlite") }) { directory in
        try SQLiteJobStore(path: directory.path("jobs.sqlite"))
    }

    /// A schema of its own in the test PostgreSQL server's database (see ``TestPostgresServer``).
    package static let postgres = StoreBackend(
        name: "PostgreSQL", location: { try await TestPostgresServer.url(schema: TestPostgresServer.schema(for: $0)) }
    ) { directory in
        try await PostgresJobStore(PostgresStorage(url: try await TestPostgresServer.url(schema: TestPostgresServer.schema(for: directory))))
    }

    /// A database of its own on the test server (schema `durablequeue`), for a test that reads
    /// the server's statistics or log of that database: they then tell of this test alone.
    package static let postgresOwnDatabase = StoreBackend(name: "PostgreSQL", location: ownDatabaseURL) { directory in
        try await PostgresJobStore(PostgresStorage(url: try await ownDatabaseURL(directory)))
    }

    /// The database of ``postgresOwnDatabase`` for `directory` (created on first use), named as
    /// ``TestPostgresServer/schema(for:)`` names schemas.
    package static func ownDatabase(_ directory: TemporaryDirectory) -> String { TestPostgresServer.schema(for: directory) }

    private static func ownDatabaseURL(_ directory: TemporaryDirectory) async throws -> String {
        try await TestPostgresServer.createDatabase(ownDatabase(directory))
        return try await TestPostgresServer.url(schema: "durablequeue", database: ownDatabase(directory))
    }

    /// Waits until what worker process `pid`, just killed, sent the store has taken effect: at once
    /// on SQLite (an unfinished transaction dies with its process); on PostgreSQL once the server
    /// has closed the process's connections (a COMMIT sent before the kill still commits).
    package func settleAfterKill(ofProcess pid: Int32) async throws {
        if name == Self.postgres.name { try await TestPostgresServer.waitForConnectionsToEnd(ofProcess: pid) }
    }

    /// Every backend the tests run against: SQLite, and PostgreSQL unless the run leaves out what
    /// needs a server (``TestEnvironment``).
    package static let all: [StoreBackend] = available([.sqlite, .postgres])

    /// `backends` less those that need a server, when the run leaves them out (``TestEnvironment``).
    package static func available(_ backends: [StoreBackend]) -> [StoreBackend] {
        TestEnvironment.serversEnabled ? backends : backends.filter { $0.name == Self.sqlite.name }
    }
}

/// Runs `body` with a new store of `backend` in its own temporary directory, then removes it.
package func withStore<T>(
    _ backend: StoreBackend = .sqlite, _ body: (any JobStore, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await body(try await backend.make(directory), directory)
}

/// Runs `body` with a new SQLite store on a new file in its own temporary directory, then removes it.
package func withSQLiteStore<T>(
    options: StorageOptions = StorageOptions(), _ body: (SQLiteJobStore, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await body(try SQLiteJobStore(path: directory.path("jobs.sqlite"), options: options), directory)
}

/// Opens a queue on a new store of `backend`, runs its engine while `body` runs, then stops it.
package func withRunningQueue(
    on backend: StoreBackend,
    configuration: JobQueue.Configuration = JobQueue.Configuration(pollInterval: .milliseconds(20)),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    register: (JobQueue) -> Void = { _ in }, _ body: (JobQueue) async throws -> Void
) async throws {
    try await withRunningQueue(makeStore: backend.make, configuration: configuration, logger: logger, register: register, body)
}

extension StoreBackend {
    /// A queue on the store of `directory` (see ``make``): opened twice, two queues share it as two
    /// processes would. `readOnly` opens a SQLite file read-only (PostgreSQL has no such mode).
    package func queue(
        in directory: TemporaryDirectory, configuration: JobQueue.Configuration = JobQueue.Configuration(), readOnly: Bool = false,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> JobQueue {
        let store: any JobStore =
            if readOnly && name == Self.sqlite.name {
                try SQLiteJobStore(path: try await location(directory), options: StorageOptions(readOnly: true))
            } else {
                try await make(directory)
            }
        return try JobQueue(store: store, configuration: configuration, logger: logger)
    }
}
