import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Logging
import Testing

@testable import DurableQueue

/// A store call that gets no answer is logged while it waits, then fails at the call timeout
/// (``PostgresStorage/callTimeout``): a log shows what an engine is waiting for.
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
}
