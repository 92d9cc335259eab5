import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A store call that gets no answer is logged while it waits, then fails at the call timeout
/// (``PostgresStorage/callTimeout``): a log shows what an engine is waiting for. A handle waiting
/// for a job reads again, until its reads have failed for the storage failure timeout.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .timeLimit(.minutes(1)))
struct SlowCallTests {
    @Test func aCallWaitingPastHalfItsTimeoutIsLoggedThenFailsAtTheTimeout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = LogRecorder(capacity: 50)
        var storage = try PostgresStorage(url: try await StoreBackend.postgres.location(directory))
        storage.callTimeout = .seconds(2)
        let store = try await PostgresJobStore(storage, logger: log.logger(level: .info))
        let release = try await TestPostgresServer.lockJobsTable(ofSchema: TestPostgresServer.schema(for: directory))

        let started = ContinuousClock.now
        let enqueue = Task { try await store.enqueue([NewJob(queue: "q", kind: "k", input: "1")], now: Date().millisecondsSince1970) }
        try await eventually("the waiting call is logged", seconds: 1.9) { log.text.contains("no answer yet from the database server") }
        let logged = ContinuousClock.now - started
        let error = await #expect(throws: DurableQueueError.self) { try await enqueue.value }
        let failed = ContinuousClock.now - started
        try await release()

        #expect(error?.code == .storage, "\(String(describing: error))")
        let line = log.text.split(separator: "\n").first { $0.contains("no answer yet") }.map(String.init) ?? ""
        #expect(line.contains("to 'enqueue") && line.contains("; still waiting"), "\(line)")
        // Logged after half the timeout (1 s), at the watchdog's next look; failed after the timeout.
        #expect(logged >= .seconds(1) && failed >= .seconds(2), "logged after \(logged), failed after \(failed)")
        #expect(log.text.components(separatedBy: "no answer yet").count == 2, "logged once: \(log.text)")
    }

    @Test func aHandleWaitingForAJobRidesOutReadsThatGetNoAnswer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let job = try await enqueueEcho(in: directory)
        var storage = try PostgresStorage(url: try await StoreBackend.postgres.location(directory))
        storage.callTimeout = .milliseconds(300)
        let queue = try JobQueue(store: try await PostgresJobStore(storage), configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(Echo())
        let handle = queue.handle(Echo.self, id: job)
        let schema = TestPostgresServer.schema(for: directory)
        // Reads of the jobs table wait: the handle's first read gets no answer within the call timeout.
        let release = try await TestPostgresServer.lockJobsTable(ofSchema: schema, againstReads: true)
        let waitEnded = Atomic(false)
        let waiter = Task {
            defer { waitEnded.store(true, ordering: .relaxed) }
            return try await handle.result(timeout: .seconds(50))
        }
        try await eventually("a read failed and the handle read again, or the wait ended") {
            let waitingReads = try await TestPostgresServer.psql(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = format('%I.jobs', :'schema')::regclass;",
                variables: ["schema": schema])
            return (Int(waitingReads) ?? 0) >= 2 || waitEnded.load(ordering: .relaxed)
        }
        try await release()
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        #expect(try await waiter.value == "x")
    }

    @Test func aHandleWhoseReadsFailForTheStorageFailureTimeoutThrowsTheStoresError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let job = try await enqueueEcho(in: directory)
        var storage = try PostgresStorage(url: try await StoreBackend.postgres.location(directory))
        storage.callTimeout = .milliseconds(300)
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), storageFailureTimeout: .seconds(1))
        let queue = try JobQueue(store: try await PostgresJobStore(storage), configuration: configuration)
        let handle = queue.handle(Echo.self, id: job)
        let release = try await TestPostgresServer.lockJobsTable(ofSchema: TestPostgresServer.schema(for: directory), againstReads: true)
        let started = ContinuousClock.now
        let error = await #expect(throws: DurableQueueError.self) { try await handle.result(timeout: .seconds(50)) }
        let waited = ContinuousClock.now - started
        try await release()
        #expect(error?.code == .storage && error?.message.contains("no answer from the database server") == true, "\(String(describing: error))")
        #expect(waited >= .seconds(1), "gave up after \(waited)")
    }

    /// Enqueues an echo job through a store with the default call timeout: the job is there before
    /// the test's short timeout applies, whatever a busy machine makes a first connection cost.
    private func enqueueEcho(in directory: TemporaryDirectory) async throws -> JobID {
        let queue = try await StoreBackend.postgres.queue(in: directory)
        return try await queue.enqueue(Echo.self, "x").id
    }
}
