import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore

/// Returns its input.
private struct ReturnsInput: Job {
    static let name = "returns-input"
    func run(_ input: Int, context: JobContext) async throws -> Int { input }
}

/// A PostgreSQL store listens for other nodes' changes only while something waits for them: a
/// process that only enqueues keeps no `LISTEN` connection (which the server would wake at every
/// commit), a waiting handle or an idle engine opens one, and it closes once nobody asked for the
/// time asked.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .timeLimit(.minutes(1)))
struct ListenOnDemandTests {
    /// How many connections listen on `channel` (read from another connection).
    private func listeners(on channel: String) async throws -> Int {
        Int(try await TestPostgresServer.psql("SELECT count(*) FROM pg_stat_activity WHERE query = :'listen'", variables: ["listen": "LISTEN \"\(channel)\";"]))
            ?? -1
    }

    @Test func aQueueThatOnlyEnqueuesListensOnlyOnceAHandleWaits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await StoreBackend.postgres.queue(in: directory)
        let store = try #require(queue.store as? PostgresJobStore)
        var handles: [JobHandle<ReturnsInput>] = []
        for index in 0..<20 { handles.append(try await queue.enqueue(ReturnsInput.self, index)) }
        #expect(try await listeners(on: store.channel) == 0)
        #expect(!store.hearsChanges)

        // A handle waiting for a job another process runs: the store listens from then on.
        await #expect(throws: DurableQueueError.self) { _ = try await handles[0].result(timeout: .milliseconds(300)) }
        try await eventually("the store listens") { store.hearsChanges }
        #expect(try await listeners(on: store.channel) == 1)
    }

    @Test func theListeningConnectionClosesOnceNobodyAskedForTheTimeAsked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await StoreBackend.postgres.make(directory) as! PostgresJobStore
        store.keepHearingChanges(for: .milliseconds(500))
        try await eventually("the store listens") { store.hearsChanges }
        #expect(try await listeners(on: store.channel) == 1)
        try await eventually("the store stops listening") { !store.hearsChanges }
        try await eventually("its connection closed") { try await listeners(on: store.channel) == 0 }

        // Asked again (an idle engine's wait), it listens again, and hears a job enqueued elsewhere.
        let queue = try JobQueue(store: store)
        queue.register(ReturnsInput())
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        try await eventually("the idle engine's store listens") { store.hearsChanges }
        let other = try await StoreBackend.postgres.queue(in: directory)
        #expect(try await other.enqueue(ReturnsInput.self, 7).result(timeout: .seconds(20)) == 7)
    }
}
