import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

// Four minutes: the heaviest test enqueues a thousand jobs of one key one by one (a fair queue's
// batch inserts each on its own) on both stores, beside the whole suite on a busy machine. With ten
// thousand it took 12 s alone, 350–370 s in a full run with both cores busy, and once over four
// minutes: the turns of the keys show as well with a thousand (without them, the ten small keys
// would start after the thousandth job), and the claim's cost with many jobs is the benchmarks'.
/// Keys take turns on a fair queue (``Fairness/byKey``), on both stores: a key with many waiting
/// jobs does not hold back keys with one; priorities still come first; the jobs already waiting
/// when a queue becomes fair keep their places.
@Suite(.timeLimit(.minutes(4))) struct FairnessTests {
    /// `count` jobs of key `key` (nil: none) on queue "fair".
    private func jobs(_ count: Int, key: String?, priority: Priority = .normal) -> [NewJob] {
        (0..<count).map { _ in
            var new = job("fair", priority: priority)
            new.partitionKey = key
            return new
        }
    }

    /// The keys of the next `count` jobs claimed one at a time.
    private func claimOrder(_ store: any JobStore, _ count: Int, now: Int64) async throws -> [String] {
        var keys: [String] = []
        for offset in 0..<count {
            guard let claimed = try await store.take("fair", now: now + Int64(offset)).first else { break }
            keys.append(try await store.job(claimed.id).partitionKey ?? "-")
        }
        return keys
    }

    @Test(arguments: StoreBackend.all) func tenKeysWithOneJobEachStartAmongTheFirstElevenAfterAKeyWithAThousand(
        _ backend: StoreBackend
    ) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("fair", fairness: .byKey), now: 1)
            _ = try await store.enqueue(jobs(1_000, key: "big"), now: 10)
            for small in 0..<10 { _ = try await store.enqueue(jobs(1, key: "small\(small)"), now: 20) }
            let order = try await claimOrder(store, 12, now: 1_000)
            #expect(Set(order.prefix(11)).isSuperset(of: (0..<10).map { "small\($0)" }), "\(order)")
            #expect(order.filter { $0 == "big" }.count == 2, "\(order)")
            // A key that comes later takes the next turn too.
            _ = try await store.enqueue(jobs(1, key: "late"), now: 2_000)
            #expect(try await claimOrder(store, 2, now: 3_000).contains("late"))
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func prioritiesComeFirstAndJobsWithoutAKeyShareATurn(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("fair", fairness: .byKey), now: 1)
            _ = try await store.enqueue(jobs(3, key: "a") + jobs(3, key: nil) + jobs(3, key: "b"), now: 10)
            _ = try await store.enqueue(jobs(1, key: "b", priority: .high), now: 20)
            let order = try await claimOrder(store, 9, now: 1_000)
            #expect(order.first == "b", "the high-priority job first: \(order)")
            #expect(Array(order.dropFirst().prefix(6)).sorted() == ["-", "-", "a", "a", "b", "b"], "two turns of each: \(order)")
        }
    }

    /// A batch that mixes a fair queue's jobs with another queue's: each fair job takes its key's
    /// turn (the batch inserts them on their own), the other queue's jobs keep their FIFO order.
    @Test(arguments: StoreBackend.all) func aBatchMixingQueuesGivesTheFairJobsTheirTurns(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("fair", fairness: .byKey), now: 1)
            let plain = (0..<3).map { index in job("plain", input: "{\"n\":\(index)}") }
            let outcomes = try await store.enqueue(
                Array(plain[0..<2]) + jobs(3, key: "a") + [plain[2]] + jobs(3, key: "b"), now: 10)
            let ids = outcomes.map(\.id.rawValue)
            #expect(ids == Array(ids[0]..<ids[0] + 9), "one id each, in order")
            let order = try await claimOrder(store, 6, now: 1_000)
            #expect(order.prefix(2).sorted() == ["a", "b"] && order.prefix(4).sorted() == ["a", "a", "b", "b"], "\(order)")
            let others = try await store.take("plain", limit: 3, now: 2_000)
            // PostgreSQL gives jsonb back with a space after the colon.
            #expect(others.map { $0.input.replacingOccurrences(of: " ", with: "") } == plain.map(\.input))
        }
    }

    /// The queue's virtual time moves with its starts: a new key joins the current round, after the
    /// keys whose turn in it is still to come, not before every waiting job.
    @Test(arguments: StoreBackend.all) func aNewKeyJoinsTheCurrentRound(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("fair", fairness: .byKey), now: 1)
            _ = try await store.enqueue(jobs(3, key: "a") + jobs(3, key: "b"), now: 10)
            #expect(try await claimOrder(store, 4, now: 1_000).sorted() == ["a", "a", "b", "b"])
            _ = try await store.enqueue(jobs(1, key: "c"), now: 2_000)
            let next = try await claimOrder(store, 3, now: 3_000)
            // a and b tie in this round (PostgreSQL may take either first).
            #expect(next.prefix(2).sorted() == ["a", "b"] && next.last == "c", "\(next)")
        }
    }

    @Test(arguments: StoreBackend.all) func jobsWaitingBeforeAQueueBecomesFairKeepTheirPlaces(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            _ = try await store.enqueue(jobs(3, key: "old"), now: 10)
            try await store.configure(QueueConfiguration("fair", fairness: .byKey), now: 20)
            _ = try await store.enqueue(jobs(1, key: "new"), now: 30)
            #expect(try await claimOrder(store, 4, now: 1_000) == ["old", "old", "old", "new"])
            #expect(try await store.queue(named: "fair")?.fairness == .byKey)
        }
    }

    /// What waits and runs per key: the store's counts (for `durableq status --by-key`) and the
    /// `partition_status` view agree.
    @Test(arguments: StoreBackend.all) func jobsAreCountedByKey(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            _ = try await store.enqueue(jobs(2, key: "a") + jobs(1, key: nil) + jobs(2, key: "b"), now: 10)
            _ = try await store.take("fair", limit: 1, now: 1_000)
            let counts = try await store.keyCounts(queue: "fair")
            #expect(counts.map(\.key) == [nil, "a", "b"])
            #expect(counts.map { [$0[.pending], $0[.running]] } == [[1, 0], [1, 1], [2, 0]], "\(counts)")
            let rows = try await store.transaction(now: 2_000) { tx, _ in
                try tx.query("SELECT key, pending, running FROM partition_status WHERE queue = 'fair' ORDER BY key", [])
            }
            // Keyed rows first (NULL sorts last on PostgreSQL, first on SQLite: compare as a set).
            let view = Set(rows.map { "\($0[0].text ?? "-") \($0[1].integer ?? -1) \($0[2].integer ?? -1)" })
            #expect(view == ["a 1 1", "b 2 0", "- 1 0"], "\(rows)")
            #expect(try await store.keyCounts(queue: "none").isEmpty)
        }
    }

    @Test func aLIFOQueueCannotBeFair() async throws {
        try await withStore { store, _ in
            let error = await #expect(throws: DurableQueueError.self) {
                try await store.configure(QueueConfiguration("fair", mode: .lifo, fairness: .byKey), now: 1)
            }
            #expect(error?.code == .invalidArgument)
        }
    }
}
