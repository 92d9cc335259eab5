import DurableQueueMigrations
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct MigrationTests {
    @Test func everySQLFileIsListedInOrderWithoutGaps() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) }.sorted()
        #expect(files == SchemaMigrations.all.map(\.name))
        #expect(SchemaMigrations.all.map(\.version) == Array(1...SchemaMigrations.all.count))
        for migration in SchemaMigrations.all {
            #expect(migration.name.hasPrefix(String(format: "%04d_", migration.version)))
        }
    }

    @Test func aNewFileIsMigratedToTheLatestVersionInWALMode() async throws {
        try await withSQLiteStore { store, directory async throws in
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
            #expect(try connection.scalarInt64("PRAGMA application_id") == SQLiteMigrator.applicationID)
            var mode = ""
            try connection.query("PRAGMA journal_mode") { mode = $0.string(0) }
            #expect(mode == "wal")
            var tables: [String] = []
            try connection.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name") {
                tables.append($0.string(0))
            }
            #expect(tables == [
                "cache_entries", "cache_list", "commit_counter", "deleted_jobs", "group_events", "group_list", "groups", "job_attempt_state", "job_dependencies", "job_dependency_list", "job_events", "job_handoffs", "job_history",
                "job_id_floor", "job_list", "job_options", "job_signal_list", "job_signals", "job_step_list", "job_steps", "job_tags", "job_wait_targets", "job_waits",
                "jobs", "key_limits", "partition_keys", "partition_status", "queue_starts", "queue_status", "queues", "schedule_list", "schedules", "sqlite_sequence",
                "worker_kind_list", "worker_kinds",
            ])
        }
    }

    @Test func reopeningKeepsTheDataAndAppliesNothingTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let id = try await SQLiteJobStore(path: path).add(job())
        for _ in 0..<3 {
            let store = try SQLiteJobStore(path: path)
            #expect(try await store.job(id).state == .pending)
        }
        let connection = try SQLiteConnection(path: path, options: StorageOptions())
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
    }

    @Test func aFileFromANewerVersionIsRefusedAndLeftUnchanged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        _ = try SQLiteJobStore(path: path)
        let newer = SchemaMigrations.latestVersion + 1
        try SQLiteConnection(path: path, options: StorageOptions()).executeScript("PRAGMA user_version = \(newer)")

        let error = try #require(throws: DurableQueueError.self) { try SQLiteJobStore(path: path) }
        #expect(error.code == .schemaTooNew)
        #expect(error.description.contains("\(newer)"))
        #expect(error.description.contains(path))
        #expect(try SQLiteMigrator.userVersion(SQLiteConnection(path: path, options: StorageOptions())) == newer)
    }

    @Test func migrationsRunInOrderOneTransactionEach() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.path("test.sqlite"), options: StorageOptions())
        let migrations = [
            SchemaMigration(version: 1, name: "0001_a", sql: "PRAGMA application_id = \(SQLiteMigrator.applicationID); CREATE TABLE a (x INTEGER);"),
            SchemaMigration(version: 2, name: "0002_b", sql: "INSERT INTO a VALUES (1); CREATE TABLE b (y INTEGER REFERENCES nowhere(z)); SELECT no_such_function();"),
        ]
        #expect(throws: DurableQueueError.self) {
            do { try SQLiteMigrator.migrate(connection, readOnly: false, migrations: migrations) } catch {
                throw SQLiteJobStore.mapped(error, operation: "migrate", path: "test", busyTimeout: .seconds(1))
            }
        }
        // The first migration stays applied; the failed second one left nothing behind.
        #expect(try SQLiteMigrator.userVersion(connection) == 1)
        #expect(try connection.scalarInt64("SELECT count(*) FROM a") == 0)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }

    @Test func aVersionOneFileKeepsItsJobsAndTheirQueuesThrottleWhenUpgraded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 1, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, throttle_interval_ms, created_at, updated_at) VALUES ('api', 500, 1, 1);
            INSERT INTO jobs (queue, kind, state, order_key, run_at, input, created_at, updated_at)
            VALUES ('api', 'fetch', 'pending', 1, 1, '{}', 1, 1), ('api', 'fetch', 'succeeded', 2, 1, '{}', 1, 1);
            """)

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try await store.job(JobID(1)).state == .pending)
        #expect(try connection.scalarInt64("SELECT throttle_interval_ms FROM \(Self.everyColumn) WHERE id = 1") == 500)
        #expect(try connection.scalarInt64("SELECT throttle_interval_ms FROM \(Self.everyColumn) WHERE id = 2") == 0)
        #expect(try await store.queue(named: "api")?.throttle == Throttle(.milliseconds(500)))
    }

    @Test func aVersionThreeFileKeepsEveryRowAndItsIDCounterWhenTheJobsTableIsRebuilt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 3, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (queue, kind, state, order_key, run_at, input, unique_key, created_at, updated_at)
            VALUES ('default', 'a', 'pending', 1, 1, '{}', 'k', 1, 1), ('default', 'b', 'succeeded', 2, 1, '{}', NULL, 1, 1),
                   ('default', 'c', 'succeeded', 3, 1, '{}', NULL, 1, 1);
            INSERT INTO job_tags (tag, job_id) VALUES ('t', 1);
            INSERT INTO job_events (job_id, at, to_state, attempt, reason) VALUES (1, 1, 'pending', 0, 'enqueued');
            INSERT INTO cache_entries (namespace, key, state, kind, job_id, updated_at) VALUES ('n', 'k', 'inProgress', 'a', 1, 1);
            DELETE FROM jobs WHERE id = 3;  -- pruned: its id must stay unused
            """)

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try connection.scalarInt64("SELECT count(*) FROM jobs") == 2)
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_tags WHERE job_id = 1") == 1)
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_events WHERE job_id = 1") == 1)
        #expect(try connection.scalarInt64("SELECT job_id FROM cache_entries") == 1)
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_history") == 1)
        #expect(try connection.scalarInt64("PRAGMA foreign_keys") == 1)
        // No IN list is left in the jobs table's constraints or indexes.
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE tbl_name = 'jobs' AND sql LIKE '%state IN%'") == 0)
        let next = try await store.enqueue(NewJob(kind: "d", input: "{}"), now: 2).id
        #expect(next == JobID(4))
        let kept = try await store.enqueue(NewJob(kind: "a", input: "{}", uniqueKey: "k"), now: 2)
        #expect(kept == .existing(JobID(1)))
    }

    @Test func aVersionFourFileKeepsItsJobsWithNoAttemptCountedAsProgressed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 4, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (queue, kind, state, order_key, run_at, attempts, max_attempts, input, checkpoint, created_at, updated_at)
            VALUES ('default', 'a', 'pending', 1, 1, 2, 3, '{}', x'0102', 1, 1);
            """)
        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        let claimed = try #require(try await store.take(now: 2).first)
        #expect(claimed.attempt == 3 && claimed.progressedAttempts == 0 && claimed.checkpoint == [1, 2])
        #expect(try connection.scalarInt64("SELECT count(*) FROM \(Self.everyColumn) WHERE checkpoint_attempt IS NULL") == 1)
    }

    /// Version 11 rebuilds the jobs table without AUTOINCREMENT and records creations in the job row.
    @Test func aVersionTenFileKeepsEveryRowItsHistoryAndItsUnusedIDsWhenUpgraded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 10, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (queue, kind, state, order_key, run_at, attempts, input, output, partition_key, trace_context,
                              progressed_attempts, created_at, updated_at, finished_at)
            VALUES ('default', 'a', 'succeeded', 1, 1, 1, '{}', '"done"', 'p', '{"traceparent":"t"}', 1, 1, 3, 3),
                   ('default', 'b', 'pending', 2, 1, 0, '{}', NULL, NULL, NULL, 0, 1, 1, NULL),
                   ('default', 'c', 'pending', 3, 1, 0, '{}', NULL, NULL, NULL, 0, 1, 1, NULL);
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
            VALUES (1, 1, NULL, 'pending', 0, 'enqueued'), (1, 2, 'pending', 'running', 1, 'claimed'),
                   (1, 3, 'running', 'succeeded', 1, NULL), (2, 1, NULL, 'pending', 0, 'enqueued');
            DELETE FROM jobs WHERE id = 3;  -- pruned: its id must stay unused
            """)

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        let first = try await store.job(JobID(1))
        #expect(first.state == .succeeded && first.attempts == 1 && first.partitionKey == "p" && first.output == "\"done\"")
        #expect(try await store.transitions(JobID(1)) == ["nil>pending", "pending>running", "running>succeeded"])
        #expect(try connection.scalarInt64("SELECT count(*) FROM jobs WHERE created_state IS NULL") == 2)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE tbl_name = 'jobs' AND sql LIKE '%AUTOINCREMENT%'") == 0)

        // A new job: the id after the pruned one, its creation shown from its row, in both the
        // store's history and the view, after the old jobs' rows.
        let next = try await store.enqueue(NewJob(kind: "d", input: "{}"), now: 5).id
        #expect(next == JobID(4))
        #expect(try await store.transitions(next) == ["nil>pending"])
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_events WHERE job_id = 4") == 0)
        var rows: [String] = []
        try connection.query("SELECT job_id, coalesce(from_state, 'nil'), to_state, reason FROM job_history") {
            rows.append("\($0.int64(0)) \($0.string(1))>\($0.string(2)) \($0.optionalString(3) ?? "")")
        }
        #expect(rows == ["1 nil>pending enqueued", "1 pending>running claimed", "1 running>succeeded ", "2 nil>pending enqueued", "4 nil>pending enqueued"])

        // Deleting the newest job, even by hand, leaves its id used.
        try connection.executeScript("DELETE FROM jobs WHERE id = 4")
        #expect(try await store.enqueue(NewJob(kind: "e", input: "{}"), now: 6).id == JobID(5))
    }

    /// Version 13 stores each job's event rows together, numbered per job, and counts them on the job.
    @Test func aVersionTwelveFileKeepsEveryEventInItsOrderNumberedPerJobWhenUpgraded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 12, in: directory)
        // Job 1 from before version 11 (its creation an event row), job 2 created since; their rows
        // interleaved, as two jobs running at once write them.
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (id, queue, kind, state, order_key, run_at, attempts, input, created_at, updated_at, created_state)
            VALUES (1, 'default', 'a', 'pending', 1, 1, 1, '{}', 1, 5, NULL),
                   (2, 'default', 'b', 'running', 2, 1, 1, '{}', 2, 4, 'pending'),
                   (3, 'default', 'c', 'pending', 3, 1, 0, '{}', 3, 3, 'pending');
            INSERT INTO job_events (id, job_id, at, from_state, to_state, attempt, reason)
            VALUES (10, 1, 1, NULL, 'pending', 0, 'enqueued'), (11, 1, 2, 'pending', 'running', 1, 'claimed'),
                   (12, 2, 3, 'pending', 'running', 1, 'claimed'), (13, 1, 5, 'running', 'pending', 1, 'lease expired');
            """)

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        var rows: [String] = []
        try connection.query("SELECT job_id, seq, at FROM job_events ORDER BY job_id, seq") {
            rows.append("\($0.int64(0)).\($0.int64(1)) at \($0.int64(2))")
        }
        #expect(rows == ["1.1 at 1", "1.2 at 2", "1.3 at 5", "2.1 at 3"])
        var counts: [Int64] = []
        try connection.query("SELECT event_count FROM jobs ORDER BY id") { counts.append($0.int64(0)) }
        #expect(counts == [3, 1, 0])
        #expect(try await store.transitions(JobID(1)) == ["nil>pending", "pending>running", "running>pending"])
        #expect(try await store.transitions(JobID(2)) == ["nil>pending", "pending>running"])
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_history") == 6)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'idx_job_events_job'") == 0)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'job_events' AND sql LIKE '%WITHOUT ROWID%'") == 1)

        // New changes go on numbering each job's rows where its old rows ended.
        let claimed = try await store.take(limit: 2, now: 10)
        #expect(Set(claimed.map(\.id)) == [JobID(1), JobID(3)])
        try await store.finish(claimed.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .succeeded(output: "1")) }, now: 11)
        #expect(try await store.transitions(JobID(1)) == ["nil>pending", "pending>running", "running>pending", "pending>running", "running>succeeded"])
        #expect(try connection.scalarInt64("SELECT max(seq) FROM job_events WHERE job_id = 1") == 5)
        #expect(try connection.scalarInt64("SELECT max(seq) FROM job_events WHERE job_id = 3") == 2)
        #expect(try await store.historyIsConsistent())

        // A deleted job's rows go with it.
        try connection.executeScript("DELETE FROM jobs WHERE id = 1")
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_events WHERE job_id = 1") == 0)
    }

    /// Version 14 indexes a group's child jobs by state: a group running when the file is upgraded
    /// goes on from where it was.
    @Test func aVersionThirteenFileGoesOnWithItsRunningGroupWhenUpgraded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 13, in: directory)
        // A concurrent group of three, one at a time: the first child running, two blocked.
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO groups (id, kind, state, max_concurrent, created_at, updated_at) VALUES (1, 'concurrent', 'running', 1, 1, 1);
            INSERT INTO jobs (id, queue, kind, state, order_key, run_at, attempts, lease_owner, lease_expires_at, input,
                              created_at, updated_at, created_state, group_id, group_position, event_count)
            VALUES (1, 'default', 'test', 'running', 1, 1, 1, 'w1', 99999, '1', 1, 2, 'blocked', 1, 0, 2),
                   (2, 'default', 'test', 'blocked', 2, 1, 0, NULL, NULL, '2', 1, 1, 'blocked', 1, 1, 0),
                   (3, 'default', 'test', 'blocked', 3, 1, 0, NULL, NULL, '3', 1, 1, 'blocked', 1, 2, 0);
            INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker)
            VALUES (1, 1, 2, 'blocked', 'pending', 0, 'its turn', NULL), (1, 2, 2, 'pending', 'running', 1, 'claimed', 'w1');
            """)

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'idx_jobs_group'") == 0)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'idx_jobs_group_state'") == 1)
        #expect(try await store.take(limit: 5, now: 5).isEmpty, "the running child holds the group's one place")
        // Each ending starts the next child, one at a time.
        for (ended, next, now) in [(JobID(1), JobID(2), Int64(10)), (JobID(2), JobID(3), 20)] {
            try await store.finish([FinishedAttempt(.first(ended), owner: "w1", outcome: .succeeded(output: "0"))], now: now)
            #expect(try await store.take(limit: 5, now: now).map(\.id) == [next])
        }
        try await store.finish([FinishedAttempt(.first(JobID(3)), owner: "w1", outcome: .succeeded(output: "0"))], now: 30)
        #expect(try await store.groupState(GroupID(1)) == .succeeded)
        #expect(try await store.historyIsConsistent())
    }

    /// Version 15 rebuilds the jobs table (its state CHECK admits `handed_off`): every row keeps every
    /// value, the ids and the history go on, and the indexes, the trigger and the views work as before.
    @Test func aVersionFourteenFileKeepsEveryValueOfEveryJobWhenTheTableIsRebuiltForHandOffs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 14, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
                              timeout_ms, unique_key, lease_owner, lease_expires_at, input, output, error, progress, checkpoint,
                              created_at, updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source,
                              progressed_attempts, checkpoint_attempt, trace_context, partition_key, created_state, event_count)
            VALUES (7, 'default', 'a', 'running', 4, 7, 5, 2, 3, '{"kind":"constant"}', 9000, 'key-7', 'w1', 99999, '"in"',
                    NULL, '{"type":"E","message":"m","retryable":true}', 0.5, x'0102', 1, 6, 5, NULL, 100, 'job', 1, 2,
                    '{"traceparent":"00"}', 'p', 'pending', 1),
                   (9, 'default', 'b', 'succeeded', 0, 9, 2, 1, NULL, NULL, NULL, NULL, NULL, NULL, '"x"', '"out"', NULL, NULL,
                    NULL, 2, 3, 2, 3, 0, 'queue', 0, NULL, NULL, NULL, 'pending', 2);
            DELETE FROM jobs WHERE id = 9;
            INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker)
            VALUES (7, 1, 5, 'pending', 'running', 1, 'claimed', 'w1');
            """)
        func rows() throws -> [String] {
            var rows: [String] = []
            try connection.query(
                """
                SELECT id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy, timeout_ms,
                       unique_key, lease_owner, lease_expires_at, input, output, error, progress, hex(checkpoint), created_at,
                       updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source, progressed_attempts,
                       checkpoint_attempt, trace_context, partition_key, created_state, event_count
                FROM \(Self.everyColumn(connection)) ORDER BY id
                """
            ) { row in rows.append((0..<31).map { row.optionalString(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
            return rows
        }
        let before = try rows()

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try rows() == before)
        #expect(try connection.scalarInt64("SELECT count(*) FROM \(Self.everyColumn) WHERE handed_off_to IS NOT NULL") == 0)
        for index in Self.latestIndexes {
            #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", [index]) == 1, "\(index)")
        }
        // The deleted job's id stays used; a job's unique key is still held while it is handed off.
        #expect(try await store.add(job()) == JobID(10))
        #expect(try await store.handOff(AttemptID(job: JobID(7), number: 2), owner: "w1", to: HandOffRequest(carrier: "c", reference: "r", timeout: nil), now: 10) == .handedOff)
        #expect(try await store.enqueue([job(uniqueKey: "key-7")], now: 11).first?.id == JobID(7))
        #expect(try await store.transitions(JobID(7)) == ["nil>pending", "pending>running", "running>handed_off"])
        #expect(throws: (any Error).self) { try connection.executeScript("UPDATE jobs SET state = 'lost' WHERE id = 7") }
        #expect(try connection.scalarInt64("SELECT handed_off FROM queue_status WHERE queue = 'default'") == 1)
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_handoffs WHERE handoff_reference = 'r'") == 1)
        // Reconciliation and deadlines read the handed-off jobs through their index, never the table.
        for statement in [SQLiteJobStore.handOffsOfCarrier, SQLiteJobStore.passedHandOffDeadlines] {
            var plan: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + statement, ["c"]) { plan.append($0.string(3)) }
            // Each job's side rows (version 29) are looked up by key, never scanned.
            #expect(plan[0].contains("INDEX idx_job_wait_targets_active (active=?") && !plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
        }
        #expect(try await store.historyIsConsistent())
    }

    /// Version 17 rebuilds the jobs table again (its state CHECK admits `waiting`): every row keeps
    /// every value, hand-off columns included, the steps stay, and waits and signals work.
    @Test func aVersionSixteenFileKeepsEveryValueOfEveryJobWhenTheTableIsRebuiltForWaits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 16, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
                              timeout_ms, unique_key, lease_owner, lease_expires_at, input, output, error, progress, checkpoint,
                              created_at, updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source,
                              progressed_attempts, checkpoint_attempt, trace_context, partition_key, created_state, event_count,
                              handed_off_to, handoff_reference, handoff_deadline)
            VALUES (7, 'default', 'a', 'running', 4, 7, 5, 2, 3, '{"kind":"constant"}', 9000, 'key-7', 'w1', 99999, '"in"',
                    NULL, '{"type":"E","message":"m","retryable":true}', 0.5, x'0102', 1, 6, 5, NULL, 100, 'job', 1, 2,
                    '{"traceparent":"00"}', 'p', 'pending', 1, 'carrier', 'ref', 77),
                   (9, 'default', 'b', 'succeeded', 0, 9, 2, 1, NULL, NULL, NULL, NULL, NULL, NULL, '"x"', '"out"', NULL, NULL,
                    NULL, 2, 3, 2, 3, 0, 'queue', 0, NULL, NULL, NULL, 'pending', 2, NULL, NULL, NULL);
            DELETE FROM jobs WHERE id = 9;
            INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker)
            VALUES (7, 1, 5, 'pending', 'running', 1, 'claimed', 'w1');
            INSERT INTO job_steps (job_id, name, attempt, output, recorded_at) VALUES (7, 'charge', 1, '"paid"', 4);
            """)
        func rows() throws -> [String] {
            var rows: [String] = []
            try connection.query(
                """
                SELECT id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy, timeout_ms,
                       unique_key, lease_owner, lease_expires_at, input, output, error, progress, hex(checkpoint), created_at,
                       updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source, progressed_attempts,
                       checkpoint_attempt, trace_context, partition_key, created_state, event_count, handed_off_to,
                       handoff_reference, handoff_deadline
                FROM \(Self.everyColumn(connection)) ORDER BY id
                """
            ) { row in rows.append((0..<34).map { row.optionalString(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
            return rows
        }
        let before = try rows()

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try rows() == before)
        #expect(try await store.steps(of: JobID(7)).map(\.output) == [#""paid""#])
        for index in Self.latestIndexes {
            #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", [index]) == 1, "\(index)")
        }
        // The deleted job's id stays used; a job's unique key is still held while it waits.
        #expect(try await store.add(job()) == JobID(10))
        #expect(
            try await store.waitForSignal(AttemptID(job: JobID(7), number: 2), owner: "w1", name: "go", timeout: 40, now: 10)
                == .ended(.waiting))
        #expect(try await store.enqueue([job(uniqueKey: "key-7")], now: 11).first?.id == JobID(7))
        #expect(try connection.scalarInt64("SELECT waiting FROM queue_status WHERE queue = 'default'") == 1)
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_waits WHERE waiting_for = 'go'") == 1)
        // Timeouts read the waits under way through their index, never a table.
        var plan: [String] = []
        try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.passedWaits, [100]) { plan.append($0.string(3)) }
        #expect(plan[0].contains("INDEX idx_job_wait_targets_active (active=?") && !plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
        #expect(try await store.endPassedWaits(now: 100) == [JobID(7)])
        #expect(try await store.transitions(JobID(7)) == ["nil>pending", "pending>running", "running>waiting", "waiting>pending"])
        #expect(try connection.scalarInt64("SELECT count(*) FROM job_signal_list") == 0)
        #expect(try await store.signal(JobID(7), name: "go", payload: "true", now: 120) == .kept)
        #expect(try connection.scalarInt64("SELECT taken FROM job_signal_list WHERE name = 'go'") == 0)
        #expect(try await store.historyIsConsistent())
    }

    @Test func aVersionEighteenFileKeepsItsQueuesAndKeysAndGainsLimitsPerKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 18, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at, partition_limit, fairness, fair_time)
            VALUES ('sync', 1, 1, 2, 'by_key', 5000);
            INSERT INTO partition_keys (queue, key, last_tag) VALUES ('sync', 'acme', 6000), ('sync', '', 7000);
            INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, input, created_at, updated_at, partition_key,
                              created_state)
            VALUES (1, 'sync', 'a', 'pending', 0, 6000, 1, '1', 1, 1, 'acme', 'pending');
            """)
        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        var keys: [String] = []
        try connection.query("SELECT queue, key, last_tag, next_start_at, end_gap_ms, recent_starts FROM partition_keys ORDER BY key") { row in
            keys.append((0..<6).map { row.string(Int32($0)) }.joined(separator: "|"))
        }
        #expect(keys == ["sync||7000|0|0|[]", "sync|acme|6000|0|0|[]"])
        let queue = try #require(try await store.queue(named: "sync"))
        #expect(queue.partitionLimit == 2 && queue.fairness == .byKey && queue.keyThrottle == nil && queue.keyOverrides.isEmpty)
        var status: [String] = []
        try connection.query("SELECT key, pending, next_start_at FROM partition_status") {
            status.append("\($0.string(0))|\($0.int64(1))|\($0.int64(2))")
        }
        #expect(status == ["acme|1|0"])
        // A key throttle set now applies to the kept job's key, whose last tag stays.
        _ = try await store.updateQueue(named: "sync", now: 10) { $0.keyThrottle = Throttle(.seconds(1)) }
        #expect(try await store.take("sync", limit: 5, now: 100).map(\.id) == [JobID(1)])
        #expect(try connection.scalarInt64("SELECT next_start_at FROM partition_status WHERE key = 'acme'") == 1_100)
        #expect(try connection.scalarInt64("SELECT last_tag FROM partition_keys WHERE key = 'acme'") == 6000)
    }

    /// Version 29 keeps the scheduled jobs in an index of their own and the hand-offs and waits
    /// under way in one on their side table: each is found there, and the claim's changes of state
    /// touch neither of the other two.
    @Test func aVersionTwentyEightFileFindsItsScheduledJobsAndItsHandOffsAndWaitsThroughTheirIndexes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 28, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, input, created_at, updated_at, created_state,
                              attempts, handed_off_to, handoff_reference, handoff_deadline, waiting_for, wait_deadline)
            VALUES (1, 'default', 'a', 'scheduled', 0, 1, 50, '1', 1, 1, 'scheduled', 0, NULL, NULL, NULL, NULL, NULL),
                   (2, 'default', 'a', 'scheduled', 0, 2, 500, '2', 1, 1, 'scheduled', 0, NULL, NULL, NULL, NULL, NULL),
                   (3, 'default', 'a', 'handed_off', 0, 3, 1, '3', 1, 1, 'pending', 1, 'c', 'r', 40, NULL, NULL),
                   (4, 'default', 'a', 'waiting', 0, 4, 1, '4', 1, 1, 'pending', 1, NULL, NULL, NULL, 'go', 30),
                   (5, 'default', 'a', 'pending', 0, 5, 1, '5', 1, 1, 'pending', 0, 'c', 'old', 20, NULL, NULL);
            """)
        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'idx_jobs_timed'") == 0)
        var scheduled: [Int64] = []
        try connection.query("SELECT id FROM jobs INDEXED BY idx_jobs_scheduled WHERE state = 'scheduled' ORDER BY id") {
            scheduled.append($0.int64(0))
        }
        #expect(scheduled == [1, 2])
        // Job 5's hand-off is over: its row is a record, out of the index.
        var underWay: [String] = []
        try connection.query(
            """
            SELECT job_id || ':' || active || ':' || due_at FROM job_wait_targets INDEXED BY idx_job_wait_targets_active
            WHERE active IS NOT NULL ORDER BY job_id
            """
        ) { underWay.append($0.string(0)) }
        #expect(underWay == ["3:handed_off:40", "4:waiting:30"])
        #expect(try connection.scalarInt64("SELECT handoff_deadline FROM job_wait_targets WHERE job_id = 5") == 20)
        var plan: [String] = []
        try connection.query("EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= ?1)", [100]) {
            plan.append($0.string(3))
        }
        #expect(plan.contains { $0.contains("INDEX idx_jobs_scheduled") } && !plan.contains { $0.hasPrefix("SCAN jobs") }, "\(plan)")
        // Each is found through it: the due job starts, the passed wait and hand-off deadline end.
        #expect(try await store.endPassedWaits(now: 100) == [JobID(4)])
        #expect(try await store.nextDeadline() == 40)
        #expect(try await store.take("default", limit: 5, now: 100).map(\.id).sorted() == [JobID(1), JobID(4), JobID(5)])
        #expect(try await store.earliestWake(after: 100) == 500)
    }

    @Test func aVersionTwentyFiveFileKeepsEveryValueOfEveryJobAndGivesEachVersionOneWhenTheTableIsRebuiltForParkedJobs()
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (path, connection) = try Self.file(atVersion: 25, in: directory)
        try connection.executeScript(
            """
            INSERT INTO queues (name, created_at, updated_at) VALUES ('default', 1, 1);
            INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
                              timeout_ms, unique_key, lease_owner, lease_expires_at, input, output, error, progress, checkpoint,
                              created_at, updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source,
                              progressed_attempts, checkpoint_attempt, trace_context, partition_key, created_state, event_count,
                              handed_off_to, handoff_reference, handoff_deadline, waiting_for, wait_deadline, lost_in_a_row,
                              last_lost_attempt, created_tx)
            VALUES (7, 'default', 'a', 'waiting', 4, 7, 5, 2, 3, '{"kind":"constant"}', 9000, 'key-7', NULL, NULL, '"in"',
                    NULL, '{"type":"E","message":"m","retryable":true}', 0.5, x'0102', 1, 6, 5, NULL, 100, 'job', 1, 2,
                    '{"traceparent":"00"}', 'p', 'pending', 1, 'carrier', 'ref', 77, 'go', 30, 1, 1, 12),
                   (8, 'default', 'b', 'pending', 0, 8, 2, 0, NULL, NULL, NULL, NULL, NULL, NULL, '"x"', NULL, NULL, NULL,
                    NULL, 2, 3, NULL, NULL, 0, 'queue', 0, NULL, NULL, NULL, 'pending', 0, NULL, NULL, NULL, NULL, NULL, 0,
                    NULL, 13);
            INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker)
            VALUES (7, 1, 5, 'pending', 'running', 1, 'claimed', 'w1');
            INSERT INTO schedules (name, kind, queue, input, priority, unique_policy, tags, jitter_ms, missed, paused,
                                   next_tick_at, interval_ms, created_at, updated_at)
            VALUES ('tick', 'b', 'default', '1', 0, 'keep', '[]', 0, 'skip', 0, 100, 1000, 1, 1);
            """)
        let columns = """
            id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy, timeout_ms,
            unique_key, lease_owner, lease_expires_at, input, output, error, progress, hex(checkpoint), created_at,
            updated_at, started_at, finished_at, throttle_interval_ms, throttle_interval_source, progressed_attempts,
            checkpoint_attempt, trace_context, partition_key, created_state, event_count, handed_off_to,
            handoff_reference, handoff_deadline, waiting_for, wait_deadline, lost_in_a_row, last_lost_attempt, created_tx
            """
        func rows() throws -> [String] {
            var rows: [String] = []
            try connection.query("SELECT \(columns) FROM \(Self.everyColumn(connection)) ORDER BY id") { row in
                rows.append((0..<39).map { row.optionalString(Int32($0)) ?? "NULL" }.joined(separator: "|"))
            }
            return rows
        }
        let before = try rows()

        let store = try SQLiteJobStore(path: path)
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion)
        #expect(try rows() == before)
        #expect(try connection.scalarInt64("SELECT count(*) FROM jobs WHERE version = 1") == 2)
        #expect(try connection.scalarInt64("SELECT version FROM job_list WHERE id = 8") == 1)
        #expect(try connection.scalarInt64("SELECT version FROM schedules WHERE name = 'tick'") == 1)
        #expect(try await store.history(of: JobID(7)).map(\.reason).last == "claimed")
        for index in Self.latestIndexes {
            #expect(try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", [index]) == 1, "\(index)")
        }
        // The new state is admitted and counted; the claim still walks the pending index.
        try connection.execute("UPDATE jobs SET state = 'parked' WHERE id = 8")
        #expect(try connection.scalarInt64("SELECT parked FROM queue_status WHERE queue = 'default'") == 1)
        var plan: [String] = []
        try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.nextPendingStatement, ["default"]) { plan.append($0.string(3)) }
        #expect(plan.count == 1 && plan[0].contains("idx_jobs_next_pending"), "\(plan)")
        // A deleted job's id stays used.
        #expect(try await store.add(job()) == JobID(9))
    }

    /// The indexes of `jobs` and its side tables at the newest version.
    private static let latestIndexes = [
        "idx_jobs_next_pending", "idx_jobs_running", "idx_jobs_scheduled", "idx_jobs_finished", "idx_jobs_unique_key",
        "idx_jobs_group_state", "idx_job_wait_targets_active",
    ]

    /// Every job with every column it had before version 29 moved the columns of rare features to
    /// side tables, read back from them (their defaults where a job has no side row).
    private static let everyColumn = """
        (SELECT j.*, o.retry_policy, o.timeout_ms, coalesce(o.throttle_interval_ms, 0) AS throttle_interval_ms,
                coalesce(o.throttle_interval_source, 'queue') AS throttle_interval_source, o.trace_context, a.progress,
                a.checkpoint, coalesce(a.progressed_attempts, 0) AS progressed_attempts, a.checkpoint_attempt,
                coalesce(a.lost_in_a_row, 0) AS lost_in_a_row, a.last_lost_attempt, w.handed_off_to, w.handoff_reference,
                w.handoff_deadline, w.waiting_for, w.wait_deadline
         FROM jobs AS j LEFT JOIN job_options AS o ON o.job_id = j.id LEFT JOIN job_attempt_state AS a ON a.job_id = j.id
              LEFT JOIN job_wait_targets AS w ON w.job_id = j.id)
        """

    /// ``everyColumn`` on a file at version 29 or later, `jobs` on an older one.
    private static func everyColumn(_ connection: SQLiteConnection) throws -> String {
        try SQLiteMigrator.userVersion(connection) >= 29 ? everyColumn : "jobs"
    }

    /// A file in `directory` migrated up to schema `version` only, and a connection to it.
    private static func file(atVersion version: Int, in directory: TemporaryDirectory) throws -> (path: String, connection: SQLiteConnection) {
        let path = directory.path("jobs.sqlite")
        let connection = try SQLiteConnection(path: path, options: StorageOptions())
        try SQLiteMigrator.migrate(connection, readOnly: false, migrations: Array(SchemaMigrations.all.prefix(version)))
        return (path, connection)
    }
}
