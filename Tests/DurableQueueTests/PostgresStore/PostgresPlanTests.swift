import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import DurableQueue

/// How PostgreSQL runs the store's statements, read from its plans.
@Suite struct PostgresPlanTests {
    /// A claim walks the queue's pending jobs in the order of idx_jobs_next_pending and stops after
    /// the room: no sort of the queue's jobs, however many wait. The store prepares the statement
    /// once per connection, so PostgreSQL may plan it for the values at hand (custom) or once for
    /// any values (generic): both plans are checked.
    @Test(arguments: ["force_custom_plan", "force_generic_plan"])
    func aClaimWalksThePendingIndexInOrderWithoutSorting(planCacheMode: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await StoreBackend.postgres.make(directory)
        for batch in 0..<20 {
            let jobs = (0..<1_000).map { index in
                job("busy", input: "{\"n\":\(batch * 1_000 + index)}", priority: index % 3 == 0 ? .high : .normal)
            }
            _ = try await store.enqueue(jobs, now: 0)
        }
        let plan = try await withClient(schema: TestPostgresServer.schema(for: directory)) { connection, logger in
            try await connection.query("ANALYZE jobs", logger: logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "PREPARE claim (text, text[], bigint[], bigint, text, bigint, bigint) AS "
                        + PostgresJobStore.ClaimNext.sql), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "SET plan_cache_mode = \(planCacheMode)"), logger: logger)
            let rows = try await connection.query(
                "EXPLAIN EXECUTE claim ('busy', '{test}', '{}', 64, 'w1', 10000, 1000)", logger: logger)
            var lines: [String] = []
            for try await row in rows { lines.append(try row.decode(String.self)) }
            return lines
        }
        let text = plan.joined(separator: "\n")
        #expect(text.contains("Index Scan using idx_jobs_next_pending"), "\(text)")
        #expect(!text.contains("Sort"), "\(text)")
        #expect(!text.contains("Seq Scan on jobs"), "\(text)")
    }

    /// Runs `body` on a connection to the test server whose search path is `schema`.
    private func withClient<T: Sendable>(
        schema: String, _ body: @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: try await TestPostgresServer.port(), username: "postgres", password: nil, database: "postgres",
            tls: .disable)
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        let client = PostgresClient(configuration: configuration)
        let logger = Logger(label: "plan", factory: { _ in SwiftLogNoOpLogHandler() })
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.withConnection { try await body($0, logger) }
        }
    }
}
