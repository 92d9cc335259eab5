import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// How PostgreSQL runs the store's statements, read from its plans.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason))) struct PostgresPlanTests {
    /// A claim walks the queue's pending jobs in the order of idx_jobs_next_pending and stops after
    /// the room: no sort of the queue's jobs, however many wait. The store prepares the statement
    /// once per connection, so PostgreSQL may plan it for the values at hand (custom) or once for
    /// any values (generic): both plans are checked.
    @Test(arguments: ["force_custom_plan", "force_generic_plan"])
    func aClaimWalksThePendingIndexInOrderWithoutSorting(planCacheMode: String) async throws {
        let text = try await plan(
            of: PostgresJobStore.ClaimNext.sql, types: "text, text[], bigint[], bigint, text, bigint, bigint, int[], int[]",
            values: "'busy', '{test}', '{}', 64, 'w1', 10000, 1000, '{1}', '{1}'", planCacheMode: planCacheMode)
        #expect(text.contains("Index Scan using idx_jobs_next_pending"), "\(text)")
        #expect(!text.contains("Sort"), "\(text)")
        #expect(!text.contains("Seq Scan on jobs"), "\(text)")
    }

    /// With limits per key, the claim still walks the pending index in order a page at a time (no
    /// sort, whatever the offset), with 50 partitions busy.
    @Test(arguments: ["force_custom_plan", "force_generic_plan"])
    func aClaimOfLimitedKeysStillWalksThePendingIndexInOrder(planCacheMode: String) async throws {
        let text = try await plan(
            of: PostgresJobStore.PendingPage.sql, types: "text, text[], bigint[], bigint, bigint, int[], int[]",
            values: "'busy', '{test}', '{}', 64, 128, '{1}', '{1}'", planCacheMode: planCacheMode, partitions: 50)
        #expect(text.contains("Index Scan using idx_jobs_next_pending"), "\(text)")
        #expect(!text.contains("Sort"), "\(text)")
        #expect(!text.contains("Seq Scan on jobs"), "\(text)")
    }

    /// The keys a claim meets are read through their primary key and their running jobs counted
    /// through idx_jobs_running: no scan of the jobs or of the keys.
    @Test(arguments: ["force_custom_plan", "force_generic_plan"])
    func theKeysOfAClaimAreReadThroughTheirIndexes(planCacheMode: String) async throws {
        let text = try await plan(
            of: PostgresJobStore.KeyStates.sql, types: "text, text[]", values: "'busy', '{p1,p2,p3}'", planCacheMode: planCacheMode,
            partitions: 50, keyRows: 100_000)
        #expect(text.contains("idx_jobs_running"), "\(text)")
        #expect(!text.contains("Seq Scan on jobs"), "\(text)")
        #expect(!text.contains("Seq Scan on partition_keys"), "\(text)")
        #expect(!text.contains("Sort"), "\(text)")
    }

    /// The queue list of every claim reads one entry of idx_jobs_next_pending per queue to learn
    /// whether it has a pending job, however many wait (an `EXISTS` there was planned as a scan of
    /// every pending job).
    @Test(arguments: ["force_custom_plan", "force_generic_plan"])
    func theQueueListReadsOnePendingEntryPerQueue(planCacheMode: String) async throws {
        let text = try await plan(
            of: PostgresJobStore.QueueStates.sql, types: "bigint", values: "1000", planCacheMode: planCacheMode)
        #expect(text.contains("Limit"), "\(text)")
        #expect(text.contains("Index Scan using idx_jobs_next_pending"), "\(text)")
        #expect(!text.contains("Bitmap Heap Scan on jobs"), "\(text)")
        #expect(!text.contains("Seq Scan on jobs"), "\(text)")
    }

    /// The plan of `sql` (parameters of `types`, run with the constants `values`) on a store with
    /// 20,000 pending jobs of queue `busy`, a third of them of high priority, with PostgreSQL's
    /// `plan_cache_mode` set to `planCacheMode`; with `partitions`, the jobs are spread over that
    /// many partition keys and one job of each runs; `keyRows` keys have rows in partition_keys.
    private func plan(
        of sql: String, types: String, values: String, planCacheMode: String, partitions: Int = 0, keyRows: Int = 0
    ) async throws -> String {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await StoreBackend.postgres.make(directory)
        for batch in 0..<20 {
            let jobs = (0..<1_000).map { index in
                var new = job("busy", input: "{\"n\":\(batch * 1_000 + index)}", priority: index % 3 == 0 ? .high : .normal)
                if partitions > 0 { new.partitionKey = "p\(index % partitions)" }
                return new
            }
            _ = try await store.enqueue(jobs, now: 0)
        }
        if partitions > 0 { _ = try await store.take("busy", limit: partitions) }
        let lines = try await withClient(schema: TestPostgresServer.schema(for: directory)) { connection, logger in
            try await connection.query(
                "INSERT INTO partition_keys (queue, key, last_tag) SELECT 'busy', 'k' || g, 0 FROM generate_series(1, \(keyRows)) AS g",
                logger: logger)
            try await connection.query("ANALYZE jobs", logger: logger)
            try await connection.query("ANALYZE partition_keys", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "PREPARE statement (\(types)) AS \(sql)"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "SET plan_cache_mode = \(planCacheMode)"), logger: logger)
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE statement (\(values))"), logger: logger)
            var lines: [String] = []
            for try await row in rows { lines.append(try row.decode(String.self)) }
            return lines
        }
        return lines.joined(separator: "\n")
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
