import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Counts the handlers that started.
private final class Started: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Does nothing but count.
private struct Tick: Job {
    static let name = "tick"
    let started: Started
    func run(_ input: Int, context: JobContext) async throws -> Int {
        started.add()
        return input
    }
}

/// Another session holds a snapshot open (a forgotten `BEGIN`, a long report) through the middle of
/// a drain: no row that dies meanwhile can be cleaned up. The drain goes on, the claim's plan stays
/// an index walk, and the dead rows go once the snapshot ends.
@Suite(.serialized, .enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .timeLimit(.minutes(5)))
struct HeldSnapshotTests {
    @Test func aDrainGoesOnThroughAHeldSnapshotAndItsDeadRowsGoAfterIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A database of its own: a snapshot holds back the clean-up of its whole database.
        let store = try await StoreBackend.postgresOwnDatabase.make(directory)
        let database = StoreBackend.ownDatabase(directory)
        let third = 3_000
        let started = Started()
        let queue = try JobQueue(store: store)
        queue.register(Tick(started: started))
        for batch in 0..<3 { _ = try await queue.enqueue(Tick.self, batch: Array(batch * third..<(batch + 1) * third)) }
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }

        /// The drain rate until `count` handlers have started, in jobs a second.
        func drain(until count: Int) async throws -> Double {
            let from = started.value
            let start = ContinuousClock.now
            try await eventually("\(count) jobs started", seconds: 120) { started.value >= count }
            let elapsed = (ContinuousClock.now - start).components
            return Double(started.value - from) / (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
        let before = try await drain(until: third)
        let planBefore = try await claimPlan(database)

        // Another session takes a snapshot and keeps it (until it is ended below).
        let held = Task {
            try? await TestPostgresServer.psql(
                """
                SET application_name = 'held snapshot';
                BEGIN ISOLATION LEVEL REPEATABLE READ;
                SELECT count(*) FROM durablequeue.jobs;
                SELECT pg_sleep(600);
                """, database: database)
        }
        try await eventually("the snapshot is held") {
            try await TestPostgresServer.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'held snapshot' AND backend_xmin IS NOT NULL;",
                database: database) == "1"
        }
        let during = try await drain(until: 2 * third)
        let planDuring = try await claimPlan(database)
        // A vacuum now can remove none of the rows that died since the snapshot.
        let deadDuring = try await deadRows(database)

        _ = try await TestPostgresServer.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'held snapshot';", database: database)
        _ = await held.value
        let after = try await drain(until: 3 * third)
        try await eventually("every job ended") { try await queue.unfinishedJobCount() == 0 }
        let deadAfter = try await deadRows(database)

        for plan in [planBefore, planDuring] {
            #expect(pendingWalk(plan).contains("Index Scan using idx_jobs_next_pending"), "\(plan)")
            #expect(!plan.contains("Sort") && !plan.contains("Seq Scan on jobs"), "\(plan)")
        }
        // The walk of the pending jobs is the same; how the claimed rows are then found by id
        // (bitmap or plain index scan of the primary key) follows the table's statistics.
        #expect(pendingWalk(planDuring) == pendingWalk(planBefore), "before:\n\(planBefore)\nduring:\n\(planDuring)")
        #expect(deadDuring >= third, "dead rows a vacuum could not remove while the snapshot was held: \(deadDuring)")
        #expect(deadAfter < third / 10, "dead rows left after the snapshot ended and a vacuum ran: \(deadAfter)")
        let rates = [before, during, after].map { String(format: "%.0f", $0) }
        print("held snapshot: drain \(rates[0]) jobs/s before, \(rates[1]) during, \(rates[2]) after; dead rows \(deadDuring) while held, \(deadAfter) after")
    }

    /// The plan PostgreSQL gives the claim (``PostgresJobStore/ClaimNext``) now, for a queue with
    /// pending jobs, as a generic plan: the store prepares it once per connection.
    private func claimPlan(_ database: String) async throws -> String {
        try await TestPostgresServer.psql(
            """
            SET search_path TO durablequeue;
            SET plan_cache_mode = force_generic_plan;
            PREPARE claim (text, text[], bigint[], bigint, text, bigint, bigint, int[], int[]) AS \(PostgresJobStore.ClaimNext.sql);
            EXPLAIN (COSTS OFF) EXECUTE claim ('default', '{tick}', '{}', 64, 'plan', 1, 0, '{1}', '{1}');
            """, database: database)
    }

    /// The part of a claim's plan that picks the pending jobs (its `picked` step).
    private func pendingWalk(_ plan: String) -> String {
        plan.components(separatedBy: "CTE claimed").first?.components(separatedBy: "CTE picked").last ?? plan
    }

    /// The dead row versions left in `jobs` after a `VACUUM` of it, counted in its pages
    /// (`pgstattuple`). Not the statistics' `n_dead_tup`: a session that goes idle reports its
    /// updates up to 10 s later (a minute under contention), so counts made before the vacuum and
    /// reported after it add to what it left (a loaded run read 2,244 there).
    private func deadRows(_ database: String) async throws -> Int {
        let text = try await TestPostgresServer.psql(
            """
            CREATE EXTENSION IF NOT EXISTS pgstattuple;
            VACUUM durablequeue.jobs;
            SELECT dead_tuple_count FROM pgstattuple('durablequeue.jobs');
            """, database: database)
        return try #require(Int(text.split(separator: "\n").last ?? ""), "\(text)")
    }
}
