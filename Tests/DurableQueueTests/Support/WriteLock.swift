import DurableQueueTestSupport
import Foundation
import Synchronization

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The write lock of a store, held by another connection.
enum WriteLock {
    /// Takes the lock of the store `backend` keeps in `directory`; returns what releases it.
    static func hold(on backend: StoreBackend, in directory: TemporaryDirectory) async throws -> @Sendable () async throws -> Void {
        if backend.name == StoreBackend.sqlite.name {
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            try connection.execute("BEGIN IMMEDIATE")
            let holder = Mutex<SQLiteConnection?>(connection)
            return {
                let connection = holder.withLock { $0.take() }
                try connection?.execute("ROLLBACK")
            }
        }
        return try await TestPostgresServer.lockJobsTable(ofSchema: TestPostgresServer.schema(for: directory))
    }

    /// Takes the lock a claim of limited queue `queue` waits for first: on SQLite the file's write
    /// lock, on PostgreSQL the queue's advisory lock (the store's name for it). Returns what releases it.
    static func holdClaims(of queue: String, on backend: StoreBackend, in directory: TemporaryDirectory) async throws
        -> @Sendable () async throws -> Void
    {
        if backend.name == StoreBackend.sqlite.name { return try await hold(on: backend, in: directory) }
        let schema = TestPostgresServer.schema(for: directory)
        return try await TestPostgresServer.holdAdvisoryLock(named: "durablequeue:\(schema):\(queue)", session: schema)
    }
}
