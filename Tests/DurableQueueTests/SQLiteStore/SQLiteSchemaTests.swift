import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What the SQLite file itself guarantees: ids, views, constraints and query plans.
@Suite struct SQLiteSchemaTests {
    private let boom = JobFailure(type: "Boom", message: "it broke", retryable: true)

    @Test func idsAreNeverReusedAfterJobsAreDeleted() async throws {
        try await withSQLiteStore { store, directory async throws in
            let first = try await store.add(job())
            try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions()).executeScript("DELETE FROM jobs")
            let second = try await store.add(job())
            #expect(second > first)
        }
    }

    /// The statement cache hashes only a text's length and ending: texts that agree in both are
    /// still different statements.
    @Test func statementsThatDifferOnlyAtTheStartAreCachedApart() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.path("cache.sqlite"), options: StorageOptions())
        let ending = String(repeating: " ", count: 100) + "AS value"
        for _ in 0..<2 {
            #expect(try connection.scalarInt64("SELECT 1" + ending) == 1)
            #expect(try connection.scalarInt64("SELECT 2" + ending) == 2)
        }
    }

    @Test func aFailureIsStoredAsJSON() async throws {
        try await withSQLiteStore { store, directory async throws in
            let id = try await store.add(job())
            _ = try await store.take()
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .failed(boom))], now: 3_000)
            #expect(try await store.job(id).error == boom)
            #expect(try await store.job(id).state == .failed)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            var message = ""
            try connection.query("SELECT error_message FROM job_list WHERE id = ?", [id.rawValue]) { message = $0.string(0) }
            #expect(message == "it broke")
        }
    }

    @Test func claimingTheNextJobIsAnIndexWalkForFIFOAndLIFO() async throws {
        try await withSQLiteStore { store, directory async throws in
            _ = try await store.enqueue(batch: (0..<2_000).map { job("q", input: "\($0)", priority: Priority(rawValue: $0 % 3)) }, now: 1)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            var details: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.nextPendingStatement, ["q"]) { details.append($0.string(3)) }
            #expect(details.contains { $0.contains("SEARCH jobs USING INDEX idx_jobs_next_pending") }, "\(details)")
            // Rows come in index order: no sort, so the claim reads only as many as it takes.
            #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
        }
    }

    @Test func pruningTheLinesOfDeletedJobsSearchesAnIndex() async throws {
        try await withSQLiteStore { _, directory async throws in
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            try connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO deleted_jobs (job_id, queue, kind, state, deleted_at, reason)
                SELECT i, 'q', 'k', CASE i % 3 WHEN 0 THEN 'failed' WHEN 1 THEN 'succeeded' ELSE 'cancelled' END, i, 'delete' FROM n
                """)
            try connection.execute("ANALYZE")
            var details: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.pruneDeletedJobLinesStatement, ["failed", 1_000, 500]) {
                details.append($0.string(3))
            }
            #expect(details.contains { $0.contains("SEARCH deleted_jobs USING") && $0.contains("idx_deleted_jobs_by_age") }, "\(details)")
            #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
        }
    }

    @Test func aUniqueWindowLooksUpItsKeyThroughAnIndexWhateverTheJobsFinished() async throws {
        try await withSQLiteStore { store, directory async throws in
            _ = try await store.enqueue(batch: (0..<2_000).map { job("q", input: "\($0)", uniqueKey: "k\($0)") }, now: 1)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            var details: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.newestWithKeyStatement, ["k7", 0]) { details.append($0.string(3)) }
            #expect(details.contains { $0.contains("SEARCH jobs USING") && $0.contains("idx_jobs_unique_key (unique_key=?") }, "\(details)")
            #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
        }
    }

    @Test func aPartitionsRunningJobsAreCountedThroughAnIndex() async throws {
        try await withSQLiteStore { store, directory async throws in
            let jobs = (0..<2_000).map { index in
                var new = job("q", input: "\(index)")
                new.partitionKey = "p\(index % 100)"
                return new
            }
            _ = try await store.enqueue(batch: jobs, now: 1)
            _ = try await store.take("q", limit: 500)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            var details: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.runningInPartitionStatement, ["q", "p7"]) { details.append($0.string(3)) }
            #expect(details.contains { $0.contains("idx_jobs_running (queue=? AND partition_key=?)") }, "\(details)")
            #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
        }
    }

    /// A throttled key's next start and recent starts are one search of partition_keys' primary
    /// key, and the earliest next start ahead a search of its index, however many keys there are.
    @Test func aKeysStartsAreFoundThroughItsPrimaryKey() async throws {
        try await withSQLiteStore { store, directory async throws in
            try await store.configure(QueueConfiguration("q", keyThrottle: Throttle(.seconds(1))), now: 0)
            let jobs = (0..<2_000).map { index in
                var new = job("q", input: "\(index)")
                new.partitionKey = "p\(index)"
                return new
            }
            _ = try await store.enqueue(batch: jobs, now: 1)
            _ = try await store.take("q", limit: 1_000)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            try connection.execute("ANALYZE")
            var details: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.keyStartsStatement, ["q", "p7"]) { details.append($0.string(3)) }
            #expect(details.contains { $0.contains("SEARCH partition_keys USING PRIMARY KEY (queue=? AND key=?)") }, "\(details)")
            #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
            var wake: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.earliestWakeStatement, [5]) { wake.append($0.string(3)) }
            #expect(wake.contains { $0.contains("idx_partition_keys_next_start") }, "\(wake)")
            #expect(!wake.contains { $0.contains("SCAN partition_keys") || $0.contains("SCAN jobs") }, "\(wake)")
        }
    }

    /// Advancing a group reads its next blocked children and its active ones through an index:
    /// a read of every child at each ending made a group of n jobs cost n² row reads.
    @Test func aGroupsNextAndActiveChildrenAreFoundThroughAnIndex() async throws {
        try await withSQLiteStore { store, directory async throws in
            let children = (0..<2_000).map { CompositionNode.job(job("q", input: "\($0)"), name: nil, takesPreviousOutput: false) }
            let group = try await store.enqueue(composition: .group(.concurrent, children, maxConcurrent: 16, name: nil), now: 1)
            _ = try await store.take("q", limit: 8)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            var blocked: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.childJobsStatement(states: 1), [group.rawValue, 16, "blocked"]) {
                blocked.append($0.string(3))
            }
            #expect(blocked.contains { $0.contains("SEARCH jobs USING INDEX idx_jobs_group_state (group_id=? AND state=?)") }, "\(blocked)")
            // In index order: the read stops after as many as it takes.
            #expect(!blocked.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(blocked)")
            var active: [String] = []
            try connection.query(
                "EXPLAIN QUERY PLAN " + SQLiteJobStore.childJobsStatement(states: 3), [group.rawValue, -1, "scheduled", "pending", "running"]
            ) { active.append($0.string(3)) }
            #expect(active.contains { $0.contains("SEARCH jobs USING INDEX idx_jobs_group_state (group_id=? AND state=?)") }, "\(active)")
            #expect(!active.contains { $0.hasPrefix("SCAN") }, "\(active)")
        }
    }
}
