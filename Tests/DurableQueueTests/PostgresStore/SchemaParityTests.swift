import DurableQueue
import DurableQueueTestSupport
import Testing

/// One design, two dialects: a PostgreSQL schema has the tables and views a SQLite file has, with
/// the same columns in the same order, so that what a user learnt reading one reads the other.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct SchemaParityTests {
    /// Tables and views both stores have, column for column.
    static let shared = [
        "job_options", "job_attempt_state", "job_wait_targets", "queues", "groups", "job_list", "job_handoffs", "job_waits",
        "queue_status", "group_list", "cache_list", "job_step_list", "job_signal_list", "job_dependency_list",
        "partition_status", "schedule_list", "worker_kind_list",
    ]

    /// What only SQLite's `jobs` has: how many history rows a job has, and the transaction that
    /// created it (a SQLite file numbers each job's history itself; PostgreSQL's history rows take
    /// their order from one sequence).
    static let sqliteOnlyJobColumns: Set = ["event_count", "created_tx"]

    @Test func theTablesAndViewsHaveTheSameColumns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sqlite = try await StoreBackend.sqlite.make(directory)
        _ = try await StoreBackend.postgres.make(directory)
        let schema = TestPostgresServer.schema(for: directory)

        func sqliteColumns(_ table: String) async throws -> [String] {
            try await sqlite.transaction(now: 0) { transaction, _ in
                try transaction.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).compactMap { $0[0].text }
            }
        }
        func postgresColumns(_ table: String) async throws -> [String] {
            try await TestPostgresServer.psql(
                """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = :'schema' AND table_name = :'table' ORDER BY ordinal_position;
                """, variables: ["schema": schema, "table": table]
            ).split(separator: "\n").map(String.init)
        }

        for table in Self.shared {
            let columns = try await sqliteColumns(table)
            #expect(!columns.isEmpty, "SQLite has no \(table)")
            #expect(try await postgresColumns(table) == columns, "\(table)")
        }
        let jobs = Set(try await sqliteColumns("jobs")).subtracting(Self.sqliteOnlyJobColumns)
        #expect(Set(try await postgresColumns("jobs")) == jobs)
    }
}
