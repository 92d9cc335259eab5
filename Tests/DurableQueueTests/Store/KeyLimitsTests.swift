import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Flow control per partition key: throttles (from a start or an end), rate limits and overrides
/// per key, their next starts stored with the key, on both stores.
@Suite(.timeLimit(.minutes(1))) struct KeyLimitsTests {
    private func keyed(_ key: String?, _ input: String, queue: String = "sync") -> NewJob {
        var new = job(queue, input: "\"\(input)\"")
        new.partitionKey = key
        return new
    }

    private func take(_ store: any JobStore, at now: Int64, limit: Int = 100) async throws -> [String] {
        try await store.take("sync", limit: limit, now: now).map { $0.input.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }

    private func succeed(_ store: any JobStore, _ inputs: [String], at now: Int64) async throws {
        let running = try await store.jobs(JobFilter(states: [.running], queues: ["sync"], limit: 1_000))
        let ended = running.filter { inputs.contains($0.input.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
        try await store.finish(
            ended.map { FinishedAttempt(AttemptID(job: $0.id, number: $0.attempts), owner: "w1", outcome: .succeeded(output: "1")) },
            now: now)
    }

    @Test func thePatternStarNamesEveryKeyInTheAPIAsInTheTools() throws {
        var queue = QueueConfiguration("sync")
        queue[keys: "*"] = KeyLimits(concurrencyLimit: 2, throttle: Throttle(.seconds(1)))
        queue[keys: "premium:*"] = KeyLimits(concurrencyLimit: 20)
        #expect(queue.keyLimits == KeyLimits(concurrencyLimit: 2, throttle: Throttle(.seconds(1))))
        #expect(queue.partitionLimit == 2 && queue.keyOverrides == ["premium:*": KeyLimits(concurrencyLimit: 20)])
        #expect(queue[keys: "*"] == queue.keyLimits && queue[keys: "premium:*"] == KeyLimits(concurrencyLimit: 20))
        try queue.validate()
        queue[keys: "*"] = nil
        queue[keys: "premium:*"] = nil
        #expect(queue.keyLimits == KeyLimits() && queue.keyOverrides.isEmpty)
        // An override named '*' says what keyLimits says: refused, with the way to say it.
        queue.keyOverrides["*"] = KeyLimits(concurrencyLimit: 1)
        let error = #expect(throws: DurableQueueError.self) { try queue.validate() }
        #expect(error?.code == .invalidArgument && error?.description.contains("queue[keys: \"*\"]") == true)
    }

    @Test(arguments: StoreBackend.all) func aKeysThrottleSpacesItsStartsAndAnotherStoreKeepsThePace(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, directory in
            try await store.configure(QueueConfiguration("sync", keyThrottle: Throttle(.seconds(1))), now: 0)
            _ = try await store.enqueue(["a0", "a1", "b0", "a2", "b1"].map { keyed(String($0.prefix(1)), $0) } + [keyed(nil, "free")], now: 1_000)
            #expect(try await take(store, at: 2_000) == ["a0", "b0", "free"], "one start per key; an unkeyed job is not throttled")
            #expect(try await take(store, at: 2_999).isEmpty)
            #expect(try await store.nextWakeTime(after: 2_000) == 3_000)
            // Another process (a restart) reads each key's next start from the store.
            let other = try await backend.make(directory)
            #expect(try await take(other, at: 2_500).isEmpty)
            #expect(try await take(other, at: 3_000) == ["a1", "b1"])
            #expect(try await take(store, at: 4_000) == ["a2"])
        }
    }

    @Test(arguments: StoreBackend.all) func aThrottleFromTheEndRunsAKeysJobsOneAtATimeWithAGapAfterEach(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("sync", keyThrottle: Throttle(.seconds(1), measuredFrom: .end)), now: 0)
            _ = try await store.enqueue(["a0", "a1", "b0", "b1"].map { keyed(String($0.prefix(1)), $0) }, now: 1_000)
            #expect(try await take(store, at: 2_000) == ["a0", "b0"])
            #expect(try await take(store, at: 9_000).isEmpty, "each key's job still runs")
            try await succeed(store, ["a0"], at: 10_000)
            #expect(try await take(store, at: 10_999).isEmpty, "a waits a second after its end")
            #expect(try await take(store, at: 11_000) == ["a1"])
        }
    }

    @Test(arguments: StoreBackend.all) func aKeysRateLimitCountsItsStartsInASlidingWindow(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("sync", keyRateLimit: RateLimit(2, per: .seconds(1))), now: 0)
            _ = try await store.enqueue((0..<4).flatMap { ["a\($0)", "b\($0)"] }.map { keyed(String($0.prefix(1)), $0) }, now: 1_000)
            #expect(try await take(store, at: 2_000, limit: 3) == ["a0", "b0", "a1"])
            #expect(try await take(store, at: 2_400) == ["b1"], "b had one start left in its window")
            #expect(try await take(store, at: 2_999).isEmpty)
            // a's window moved past its two starts at 2,000; b's still holds its start at 2,400.
            #expect(try await take(store, at: 3_000) == ["a2", "b2", "a3"])
            #expect(try await take(store, at: 3_399).isEmpty)
            #expect(try await store.nextWakeTime(after: 3_000) == 3_400)
            #expect(try await take(store, at: 3_400) == ["b3"])
        }
    }

    @Test(arguments: StoreBackend.all) func theMostSpecificOverrideGivesAKeyItsLimitsAndChangesApplyAtOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let overrides = ["premium:*": KeyLimits(concurrencyLimit: 3), "premium:big": KeyLimits(concurrencyLimit: 5)]
            try await store.configure(QueueConfiguration("sync", partitionLimit: 1, keyOverrides: overrides), now: 0)
            #expect(try await store.queue(named: "sync")?.keyOverrides == overrides)
            let keys = ["free:x", "premium:a", "premium:big"]
            _ = try await store.enqueue((0..<8).flatMap { n in keys.map { keyed($0, "\($0)#\(n)") } }, now: 1_000)
            let started = Dictionary(grouping: try await take(store, at: 2_000), by: { $0.split(separator: "#")[0] }).mapValues(\.count)
            #expect(started == ["free:x": 1, "premium:a": 3, "premium:big": 5])
            _ = try await store.updateQueue(named: "sync", now: 2_500) { $0.keyOverrides["premium:*"] = KeyLimits(concurrencyLimit: 4) }
            #expect(try await take(store, at: 3_000) == ["premium:a#3"])
            _ = try await store.updateQueue(named: "sync", now: 3_500) { $0.keyOverrides = [:] }
            #expect(try await store.queue(named: "sync")?.keyOverrides == [:])
        }
        #expect(throws: DurableQueueError.self) { try QueueConfiguration("q", keyOverrides: ["a*b": KeyLimits()]).validate() }
        #expect(throws: DurableQueueError.self) { try QueueConfiguration("q", keyOverrides: ["*": KeyLimits()]).validate() }
        #expect(throws: DurableQueueError.self) { try QueueConfiguration("q", keyOverrides: ["a": KeyLimits(concurrencyLimit: -1)]).validate() }
    }

    @Test(arguments: StoreBackend.all) func onAFairQueueABlockedHotKeyDoesNotHideTheOthersFromTheClaim(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            // More of the hot key than a claim passes: without fairness, the cold key's job would
            // wait behind them until the hot key may start again.
            let hot = KeyWalk.maxSkippedRows + 500
            try await store.configure(QueueConfiguration("sync", fairness: .byKey, keyThrottle: Throttle(.seconds(60))), now: 0)
            _ = try await store.enqueue((0..<hot).map { keyed("hot", "hot\($0)") }, now: 1_000)
            _ = try await store.enqueue([keyed("cold", "cold")], now: 1_000)
            #expect(try await take(store, at: 2_000) == ["hot0", "cold"])
        }
    }

    @Test(arguments: StoreBackend.all) func removingEveryKeyThrottleLetsTheKeysStartAtOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("sync", keyThrottle: Throttle(.seconds(60))), now: 0)
            _ = try await store.enqueue(["a0", "a1"].map { keyed("a", $0) }, now: 1_000)
            #expect(try await take(store, at: 2_000) == ["a0"])
            #expect(try await take(store, at: 3_000).isEmpty)
            try await store.configure(QueueConfiguration("sync"), now: 3_500)
            #expect(try await take(store, at: 4_000) == ["a1"])
        }
        // A throttle from the end removed while a job runs: its end keeps no gap.
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("sync", keyThrottle: Throttle(.seconds(60), measuredFrom: .end)), now: 0)
            _ = try await store.enqueue(["a0", "a1"].map { keyed("a", $0) }, now: 1_000)
            #expect(try await take(store, at: 2_000) == ["a0"])
            try await store.configure(QueueConfiguration("sync"), now: 2_500)
            try await succeed(store, ["a0"], at: 3_000)
            #expect(try await store.keyCounts(queue: "sync").first { $0.key == "a" }?.nextStartAt == nil, "no next start shown")
            #expect(try await take(store, at: 3_001) == ["a1"])
        }
    }
}
