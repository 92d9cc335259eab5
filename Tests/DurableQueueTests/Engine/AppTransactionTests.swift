import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// An error the application's closure throws.
private struct OrderRejected: Error, Equatable {}

/// Calls `onRun` with its input, then returns it.
private struct Recording: Job {
    static let name = "recording"
    let onRun: @Sendable (String) -> Void
    func run(_ input: String, context: JobContext) async throws -> String {
        onRun(input)
        return input
    }
}

/// The outbox pattern: the application's rows and its jobs commit together, on every backend.
/// The SQL uses `$1`-style parameters, which SQLite and PostgreSQL both read.
@Suite(.timeLimit(.minutes(1))) struct AppTransactionTests {
    private static let createOrders = "CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, total bigint NOT NULL)"

    private func orders(_ queue: JobQueue) async throws -> [[SQLValue]] {
        try await queue.transaction { tx in try tx.query("SELECT id, total FROM orders ORDER BY id") }
    }

    @Test(arguments: StoreBackend.all) func theApplicationsRowAndItsJobCommitTogether(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let hostile = "o-1'); DROP TABLE orders; --"
        let id = try await queue.transaction { tx in
            try tx.execute(Self.createOrders)
            #expect(try tx.execute("INSERT INTO orders (id, total) VALUES ($1, $2)", [.text(hostile), 4200]) == 1)
            return try tx.enqueue(Echo.self, "receipt for o-1", options: EnqueueOptions(queue: "mail"))
        }
        #expect(try await orders(queue) == [[.text(hostile), .integer(4200)]], "values are bound, never SQL")
        let job = try await queue.store.job(id)
        #expect(job.state == .pending && job.queue == "mail")
        #expect(try await queue.store.transitions(id) == ["nil>pending"])
    }

    @Test(arguments: StoreBackend.all) func anErrorRollsBackTheRowAndTheJobAndComesOutAsItWas(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        try await queue.transaction { tx in _ = try tx.execute(Self.createOrders) }
        await #expect(throws: OrderRejected.self) {
            try await queue.transaction { tx in
                try tx.execute("INSERT INTO orders (id, total) VALUES ($1, $2)", ["o-2", 10])
                try tx.enqueue(Echo.self, "receipt for o-2")
                throw OrderRejected()
            }
        }
        #expect(try await orders(queue).isEmpty)
        #expect(try await queue.store.jobs(JobFilter()).isEmpty)

        // A failing statement: the database's message, and nothing of the transaction kept.
        let failure = await #expect(throws: DurableQueueError.self) {
            try await queue.transaction { tx in
                try tx.enqueue(Echo.self, "lost")
                try tx.execute("INSERT INTO no_such_table (id) VALUES ($1)", ["x"])
            }
        }
        #expect(failure?.message.contains("no_such_table") == true, "\(String(describing: failure))")
        #expect(try await queue.store.jobs(JobFilter()).isEmpty)
        await #expect(throws: DurableQueueError.self) {
            try await queue.transaction { tx in try tx.execute("INSERT INTO orders (id, total) VALUES ('a', 1); DELETE FROM orders") }
        }
        #expect(try await orders(queue).isEmpty)

        // The type system keeps the transaction in its closure (it is not Sendable); smuggled out
        // anyway, it refuses to work.
        nonisolated(unsafe) var smuggled: QueueTransaction?
        try await queue.transaction { tx in smuggled = tx }
        #expect(throws: DurableQueueError.self) { try smuggled?.execute("SELECT 1") }
    }

    @Test(arguments: StoreBackend.all) func workersSeeTheJobOnlyOnceTheTransactionCommits(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let application = try await backend.queue(in: directory)
        let ran = Mutex(false)
        let worker = try await backend.queue(in: directory, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        worker.register(Recording { _ in ran.withLock { $0 = true } })
        let running = Task { try await worker.run() }
        defer { running.cancel() }
        let ranBeforeCommit = try await application.transaction { tx in
            try tx.enqueue(Recording.self, "after commit")
            Thread.sleep(forTimeInterval: 0.5)  // the worker polls every 20 ms meanwhile
            return ran.withLock { $0 }
        }
        #expect(!ranBeforeCommit, "a worker ran a job its transaction had not committed")
        try await eventually("the worker ran the job after the commit") { ran.withLock { $0 } }
    }
}
