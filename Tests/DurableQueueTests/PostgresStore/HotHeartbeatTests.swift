import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore

/// A heartbeat changes only columns no index names, and the jobs table leaves room on its pages:
/// PostgreSQL renews a running job's lease with a HOT update, which writes no index entry.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct HotHeartbeatTests {
    /// 16 running jobs (the engine's default concurrency) among 300 (pages of rows inserted, some
    /// rewritten by their claim) renewed five times by the store's heartbeat statement, each a
    /// transaction: once the first heartbeat has moved the rows its page had no room for, every
    /// renewal is a HOT update (the server's counts of each transaction, read before it commits;
    /// they add up over the session). With an index on `lease_expires_at` none would be; with the
    /// table's pages filled to the brim (fillfactor 100), rows go on moving.
    @Test func everyHeartbeatOfARunningJobIsAHotUpdate() async throws {
        // A server of its own: a transaction left open anywhere on a server (another test's) keeps
        // every snapshot's horizon behind it, and with it the dead versions a page needs pruned.
        let server = try await TestPostgresServer.Own.start()
        let store = try await PostgresJobStore(PostgresStorage(url: server.url(schema: "durablequeue")))
        _ = try await store.enqueue((0..<300).map { job(input: "{\"n\":\($0),\"padding\":\"\(String(repeating: "x", count: 100))\"}") }, now: 0)
        #expect(try await store.take(limit: 16).count == 16)

        // Each heartbeat is a transaction of its own, as the engine's are; the server's counts of
        // the transaction are read before it commits.
        let round = """
            BEGIN;
            EXECUTE renew(:'ids', :'attempts', 'w1', :expires);
            SELECT 'counts ' || n_tup_upd || ' ' || n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relid = 'jobs'::regclass;
            COMMIT;
            """
        let output = try await server.psql(
            """
            SET search_path = durablequeue;
            SELECT array_agg(id ORDER BY id) AS ids, array_agg(attempts::bigint ORDER BY id) AS attempts
            FROM jobs WHERE state = 'running' \\gset
            PREPARE renew (bigint[], bigint[], text, bigint) AS \(PostgresJobStore.RenewLeases.sql);
            \(["40000", "50000", "60000", "70000", "80000"].map { round.replacingOccurrences(of: ":expires", with: $0) }.joined(separator: "\n"))
            SELECT 'renewed ' || count(*) FROM jobs WHERE lease_expires_at = 80000;
            """)
        let lines = output.split(separator: "\n").map(String.init)
        let totals = lines.filter { $0.hasPrefix("counts ") }.map { $0.split(separator: " ").dropFirst().compactMap { Int($0) } }
        let rounds = zip(totals.dropFirst(), totals).map { now, before in [now[0] - before[0], now[1] - before[1]] }
        #expect(totals.count == 5 && totals[0][0] == 16, "\(totals)")
        #expect(rounds == Array(repeating: [16, 16], count: 4), "updates and HOT updates of heartbeats 2 to 5: \(rounds)")
        #expect(lines.last == "renewed 16")
    }
}
