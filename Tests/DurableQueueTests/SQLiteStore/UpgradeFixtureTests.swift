import DurableQueueMigrations
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A file the previous schema wrote (version 28, every feature in use: see ``FixtureWriter``) is
/// upgraded to the newest: every row of every table keeps its values, every view shows what it
/// showed, and the store goes on with each job where it was.
@Suite struct UpgradeFixtureTests {
    /// The fixture, as FixtureWriter wrote it at commit a445829 (schema version 28).
    static let fixture = packageRoot.appendingPathComponent("Tests/DurableQueueTests/SQLiteStore/Fixtures/every-feature-v28.sqlite")

    @Test func everyRowAndEveryViewOfAVersion28FileIsKeptByTheUpgrade() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let connection = try SQLiteConnection(path: path, options: StorageOptions())
        #expect(try SQLiteMigrator.userVersion(connection) == 28)
        let before = try Self.contents(connection)
        #expect(before.count > 30 && before.contains { $0.hasPrefix("job_handoffs:") } && before.contains { $0.hasPrefix("job_waits:") })

        _ = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        let after = try Self.contents(connection)
        #expect(Set(after).symmetricDifference(before).isEmpty, "\(Set(after).symmetricDifference(before).sorted())")
        #expect(try connection.scalarInt64("SELECT count(*) FROM pragma_foreign_key_check") == 0)
        // Only the jobs that use a feature have its side row.
        #expect(try connection.scalarInt64("SELECT count(*) FROM jobs WHERE extras = 0") ?? 0 >= 10)
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_options") == 1)
    }

    @Test func theStoreGoesOnWithEveryJobOfAnUpgradedFileWhereItWas() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let store = try SQLiteJobStore(path: path)
        #expect(try await store.historyIsConsistent())
        // Its options reach the claim; its key is still held.
        let optioned = try #require(try await store.claim(
            queue: "options", limit: 1, owner: "w2", leaseDuration: 30_000, now: 100_000,
            kinds: RunnableKinds(versions: ["test": 1...2])).first)
        #expect(optioned.retryPolicy == #"{"kind":"constant","delay":250}"#)
        #expect(optioned.timeoutMilliseconds == 9_000 && optioned.throttleIntervalMilliseconds == 50)
        #expect(optioned.traceContext == #"{"traceparent":"00-abc-def-01"}"#)
        #expect(try await store.enqueue(job("options", uniqueKey: "key-4"), now: 100_010) == .existing(optioned.id))
        // The running job's checkpoint and progressed attempt survive a lost lease.
        let running = try #require(try await store.jobs(JobFilter(state: .running, queue: "progress")).first)
        #expect(running.checkpoint == [4, 5] && running.progress == 0.5)
        // The hand-off under way is found by its carrier and by its deadline; the wait by its own.
        #expect(try await store.handOffs(carrier: "downloads").map(\.reference) == ["transfer-9"])
        #expect(try await store.nextDeadline() == 5_040_200)
        #expect(try await store.endPassedWaits(now: 7_000_000).count == 1)
        #expect(try await store.recoverExpiredLeases(now: 20_000_000).contains { $0.id == JobID(8) })
        #expect(try await store.historyIsConsistent())
    }

    /// Every row of every table and view but `jobs` (whose columns moved: read back through the
    /// side tables) and the bookkeeping tables, as `name: values` lines.
    static func contents(_ connection: SQLiteConnection) throws -> [String] {
        var names: [String] = []
        try connection.query(
            """
            SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT IN ('jobs', 'sqlite_sequence',
              'schema_migrations', 'job_options', 'job_attempt_state', 'job_wait_targets', 'queue_status')
            ORDER BY name
            """
        ) { names.append($0.string(0)) }
        var lines: [String] = []
        for name in names + ["jobs"] {
            let source = name == "jobs" ? try everyJobColumn(connection) : "\"\(name)\""
            try connection.query("SELECT * FROM \(source)") { row in
                lines.append("\(name): " + (0..<row.columnCount).map { row.optionalString($0) ?? "NULL" }.joined(separator: "|"))
            }
        }
        return lines
    }

    /// The jobs with the columns of version 28, in its order.
    private static func everyJobColumn(_ connection: SQLiteConnection) throws -> String {
        let columns = """
            id, queue, kind, version, state, priority, order_key, run_at, attempts, max_attempts, retry_policy, timeout_ms,
            unique_key, cancel_requested, lease_owner, lease_expires_at, input, output, error, progress, hex(checkpoint),
            created_at, updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source, group_id,
            group_position, step_name, takes_previous_output, progressed_attempts, checkpoint_attempt, trace_context,
            partition_key, created_state, event_count, handed_off_to, handoff_reference, handoff_deadline, waiting_for,
            wait_deadline, lost_in_a_row, last_lost_attempt, created_tx
            """
        guard try SQLiteMigrator.userVersion(connection) >= 29 else { return "(SELECT \(columns) FROM jobs)" }
        return """
            (SELECT \(columns) FROM
               (SELECT j.*, o.retry_policy, o.timeout_ms, coalesce(o.throttle_interval_ms, 0) AS throttle_interval_ms,
                       coalesce(o.throttle_interval_source, 'queue') AS throttle_interval_source, o.trace_context,
                       a.progress, a.checkpoint, coalesce(a.progressed_attempts, 0) AS progressed_attempts,
                       a.checkpoint_attempt, coalesce(a.lost_in_a_row, 0) AS lost_in_a_row, a.last_lost_attempt,
                       w.handed_off_to, w.handoff_reference, w.handoff_deadline, w.waiting_for, w.wait_deadline
                FROM jobs AS j LEFT JOIN job_options AS o ON o.job_id = j.id
                     LEFT JOIN job_attempt_state AS a ON a.job_id = j.id LEFT JOIN job_wait_targets AS w ON w.job_id = j.id))
            """
    }
}
