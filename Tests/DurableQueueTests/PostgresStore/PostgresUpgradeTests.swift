import DurableQueuePostgres
import DurableQueuePostgresMigrations
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore

/// A schema written by an earlier version of the PostgreSQL store is brought to the newest by the
/// store that opens it: every row and every view reads as before, and the store goes on with its jobs.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct PostgresUpgradeTests {
    /// Version 22 (before the lean hot path of version 23): jobs enqueued by the SQL function, one
    /// of them run to its end and one running, with their history rows as version 22 wrote them.
    @Test func aSchemaOfVersion22KeepsEveryRowAndTheStoreGoesOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let schema = TestPostgresServer.schema(for: directory)
        let version22 = PostgresSchemaMigrations.all.filter { $0.version <= 22 }
        try #require(version22.count == 22)
        let create =
            """
            CREATE SCHEMA :"schema";
            SET search_path = :"schema";
            CREATE TABLE schema_migrations (version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL);

            """
            + version22.map { "\($0.sql)\n;\nINSERT INTO schema_migrations VALUES (\($0.version), '\($0.name)', 0);" }.joined(separator: "\n")
            + """

            SELECT durablequeue_enqueue('test', '{"n": 1}');
            SELECT durablequeue_enqueue('test', '{"n": 2}');
            SELECT durablequeue_enqueue('test', '{"n": 3}', '{"priority": "high"}');
            UPDATE jobs SET state = 'succeeded', attempts = 1, output = '1', started_at = 2000, finished_at = 3000, updated_at = 3000
            WHERE input = '{"n": 1}';
            UPDATE jobs SET state = 'running', attempts = 1, lease_owner = 'w9', lease_expires_at = 5000, started_at = 4000,
                            updated_at = 4000
            WHERE input = '{"n": 3}';
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
            SELECT id, 2000, 'pending', 'running', 1, 'claimed', 'w1' FROM jobs WHERE input = '{"n": 1}'
            UNION ALL SELECT id, 3000, 'running', 'succeeded', 1, NULL, 'w1' FROM jobs WHERE input = '{"n": 1}'
            UNION ALL SELECT id, 4000, 'pending', 'running', 1, 'claimed', 'w9' FROM jobs WHERE input = '{"n": 3}';
            """
        _ = try await TestPostgresServer.psql(create, variables: ["schema": schema])
        let views = """
            SET search_path = :"schema";
            SELECT 'history', h.* FROM job_history AS h;
            SELECT 'list', l.* FROM job_list AS l ORDER BY id;
            SELECT 'version', max(version) FROM schema_migrations;
            """
        let before = try await TestPostgresServer.psql(views, variables: ["schema": schema])
        #expect(before.contains("version|22"))

        let store = try await StoreBackend.postgres.make(directory)
        let after = try await TestPostgresServer.psql(views, variables: ["schema": schema])
        #expect(after == before.replacingOccurrences(of: "version|22", with: "version|23"), "\(before)\n---\n\(after)")

        // The store goes on: the pending job runs, the lost attempt is taken back.
        let ids = try await TestPostgresServer.psql("SELECT id FROM \"\(schema)\".jobs ORDER BY id").split(separator: "\n")
            .compactMap { Int64($0) }.map(JobID.init)
        try #require(ids.count == 3)
        let claimed = try await store.take(now: 10_000)
        #expect(claimed.map(\.id) == [ids[1]])
        try await store.succeed(ids[1], now: 11_000)
        #expect(try await store.recoverExpiredLeases(now: 12_000).map(\.id) == [ids[2]])
        #expect(try await store.history(of: ids[1]).map(\.to) == [.pending, .running, .succeeded])
        #expect(try await store.historyIsConsistent())

        // A deleted job's history goes with it; the others keep theirs.
        let left = try await TestPostgresServer.psql(
            """
            SET search_path = :"schema";
            DELETE FROM jobs WHERE id = \(ids[0].rawValue);
            SELECT job_id, count(*) FROM job_events GROUP BY job_id ORDER BY job_id;
            """, variables: ["schema": schema])
        #expect(left == "\(ids[1].rawValue)|2\n\(ids[2].rawValue)|2", "\(left)")
    }
}
