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
        let create =
            try Self.schemaScript(ofVersion: 22)
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
        let newest = try #require(PostgresSchemaMigrations.all.last).version
        #expect(after == before.replacingOccurrences(of: "version|22", with: "version|\(newest)"), "\(before)\n---\n\(after)")

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

    /// Version 23 (before the side tables of version 24), a job of each rare feature: options (a
    /// retry policy, timeout, trace context and throttle of its own), attempt state (progress, a
    /// checkpoint, a lost attempt), a hand-off and a wait. Each value moves to its table, the views
    /// read as before, and the store reads, claims and recovers the jobs from there.
    @Test func aSchemaOfVersion23MovesEachRareValueToItsTableAndReadsTheSame() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let schema = TestPostgresServer.schema(for: directory)
        let create =
            try Self.schemaScript(ofVersion: 23)
            + """

            SELECT durablequeue_enqueue('test', '{"n": 1}', '{"timeout": "5s", "throttle_interval": "2s"}');
            SELECT durablequeue_enqueue('test', '{"n": 2}');
            SELECT durablequeue_enqueue('test', '{"n": 3}');
            SELECT durablequeue_enqueue('test', '{"n": 4}');
            SELECT durablequeue_enqueue('test', '{"n": 5}');
            UPDATE jobs SET retry_policy = '{"policy": 1}', trace_context = '{"traceparent": "t"}' WHERE input = '{"n": 1}';
            UPDATE jobs SET state = 'handed_off', attempts = 1, handed_off_to = 'carrier', handoff_reference = 'ref-3',
                            handoff_deadline = 9000, updated_at = 4000
            WHERE input = '{"n": 3}';
            UPDATE jobs SET state = 'waiting', waiting_for = 'approval', wait_deadline = 20000, updated_at = 4000
            WHERE input = '{"n": 4}';
            UPDATE jobs SET state = 'running', attempts = 2, lease_owner = 'w9', lease_expires_at = 5000, started_at = 4000,
                            progress = 0.25, checkpoint = '\\x0102', progressed_attempts = 1, checkpoint_attempt = 1,
                            lost_in_a_row = 1, last_lost_attempt = 1
            WHERE input = '{"n": 5}';
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
            SELECT id, 4000, 'pending', state, attempts, 'set by the test', NULL FROM jobs WHERE state <> 'pending';
            """
        _ = try await TestPostgresServer.psql(create, variables: ["schema": schema])
        let views = """
            SET search_path = :"schema";
            SELECT 'list', l.* FROM job_list AS l ORDER BY id;
            SELECT 'handoffs', h.* FROM job_handoffs AS h ORDER BY id;
            SELECT 'waits', w.* FROM job_waits AS w ORDER BY id;
            """
        let before = try await TestPostgresServer.psql(views, variables: ["schema": schema])
        #expect(before.contains("|0.25|") && before.contains("|2000|job|") && before.contains("ref-3") && before.contains("approval"))

        let store = try await StoreBackend.postgres.make(directory)
        let after = try await TestPostgresServer.psql(views, variables: ["schema": schema])
        #expect(after == before, "\(before)\n---\n\(after)")
        let sideRows = try await TestPostgresServer.psql(
            """
            SET search_path = :"schema";
            SELECT string_agg(extras::text, ',' ORDER BY id) FROM jobs;
            SELECT count(*) FROM job_options;
            SELECT count(*) FROM job_attempt_state;
            SELECT string_agg(active, ',' ORDER BY job_id) FROM job_wait_targets;
            """, variables: ["schema": schema])
        #expect(sideRows == "1,0,4,4,2\n1\n1\nhanded_off,waiting", "\(sideRows)")

        let ids = try await TestPostgresServer.psql("SELECT id FROM \"\(schema)\".jobs ORDER BY id").split(separator: "\n")
            .compactMap { Int64($0) }.map(JobID.init)
        try #require(ids.count == 5)
        let options = try await store.job(ids[0])
        #expect(options.retryPolicy == "{\"policy\": 1}" && options.timeoutMilliseconds == 5_000)
        #expect(options.throttleIntervalMilliseconds == 2_000)
        let state = try await store.job(ids[4])
        #expect(state.progress == 0.25 && state.checkpoint == [1, 2])
        #expect(try await store.job(ids[2]).handOff == HandOffTarget(carrier: "carrier", reference: "ref-3", deadline: 9_000))
        let waiting = try await store.job(ids[3])
        #expect(waiting.waitingFor == "approval" && waiting.waitDeadline == 20_000)
        #expect(try await store.nextDeadline() == 9_000)

        // The store goes on: the throttled job is claimed with its options (the plain one waits
        // for its interval); the passed hand-off and the lost attempt are recovered.
        let claimed = try await store.take(limit: 2, now: 10_000)
        #expect(claimed.map(\.id) == [ids[0]])
        #expect(claimed.first?.retryPolicy == "{\"policy\": 1}" && claimed.first?.timeoutMilliseconds == 5_000)
        #expect(claimed.first?.throttleIntervalMilliseconds == 2_000 && claimed.first?.traceContext == "{\"traceparent\": \"t\"}")
        #expect(Set(try await store.recoverExpiredLeases(now: 12_000).map(\.id)) == [ids[2], ids[4]])
        #expect(try await store.nextDeadline() == 20_000)
        #expect(try await store.historyIsConsistent())

        // A deleted job's side rows go with it.
        let left = try await TestPostgresServer.psql(
            """
            SET search_path = :"schema";
            DELETE FROM jobs WHERE id IN (\(ids[0].rawValue), \(ids[2].rawValue), \(ids[4].rawValue));
            SELECT (SELECT count(*) FROM job_options) + (SELECT count(*) FROM job_attempt_state)
                   + (SELECT count(*) FROM job_wait_targets);
            """, variables: ["schema": schema])
        #expect(left == "1", "\(left)")
    }

    /// A psql script that creates the schema `:"schema"` as the store's migrations up to `version`
    /// left it, with their `schema_migrations` rows; what the caller appends runs in that schema.
    static func schemaScript(ofVersion version: Int) throws -> String {
        let migrations = PostgresSchemaMigrations.all.filter { $0.version <= version }
        try #require(migrations.count == version)
        return """
            CREATE SCHEMA :"schema";
            SET search_path = :"schema";
            CREATE TABLE schema_migrations (version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL);

            """
            + migrations.map { "\($0.sql)\n;\nINSERT INTO schema_migrations VALUES (\($0.version), '\($0.name)', 0);" }
            .joined(separator: "\n")
    }
}
