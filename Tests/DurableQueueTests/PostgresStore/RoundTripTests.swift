import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What a job costs in round trips on PostgreSQL, counted by the server (`pg_stat_statements`, in
/// a database of the suite's own): across a network each statement is a round trip users pay.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .timeLimit(.minutes(1)))
struct RoundTripTests {
    /// One job at a time, each ending's transaction also claims the next job: `BEGIN`, the ended
    /// row locked with the queues' states read, the ending recorded with the next claim, `COMMIT`.
    @Test func jobsRunOneAtATimeCostFourStatementsEach() async throws {
        let database = "round_trips"
        try await TestPostgresServer.createDatabase(database)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try await TestPostgresServer.url(schema: TestPostgresServer.schema(for: directory), database: database)
        let queue = try JobQueue(
            store: try await PostgresJobStore(PostgresStorage(url: url)), configuration: JobQueue.Configuration(maxConcurrentJobs: 1))
        queue.register(Echo())
        let jobs = 100
        _ = try await queue.enqueue(Echo.self, batch: (0..<jobs).map(String.init))
        try await TestPostgresServer.resetStatementCounts(inDatabase: database)

        let report = try await queue.drain()
        let statements = try await TestPostgresServer.statementsRun(inDatabase: database)
        let counts = try await TestPostgresServer.statementCounts(inDatabase: database)

        #expect(report.attemptsRun == jobs)
        // Four per job, and a few dozen for the drain's start (its first claim, lease and timer
        // checks) and its last look at the queue.
        #expect(
            statements >= 4 * (jobs - 1) && statements <= 4 * jobs + 40,
            "\(statements) statements for \(jobs) jobs:\n\(counts)")
        let history = try await queue.transaction { tx in
            try tx.query("SELECT job_id, to_state FROM job_events WHERE to_state IN ('running', 'succeeded') ORDER BY id")
        }
        // The history reads in the order things happened: each job ends before the next one starts.
        let states = history.map { $0[1] }
        #expect(states == Array(repeating: [SQLValue.text("running"), .text("succeeded")], count: jobs).flatMap { $0 }, "\(history)")
    }
}
