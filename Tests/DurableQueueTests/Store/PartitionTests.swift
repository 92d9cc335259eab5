import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Partitioned concurrency: at most N running jobs per partition key within a queue, on every backend.
@Suite(.timeLimit(.minutes(1))) struct PartitionTests {
    private func partitioned(_ key: String?, input: Int, priority: Priority = .normal) -> NewJob {
        var new = job("sync", input: "\(input)", priority: priority)
        new.partitionKey = key
        return new
    }

    private func succeed(_ store: any JobStore, _ jobs: [ClaimedJob], now: Int64 = 2_000) async throws {
        try await store.finish(jobs.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .succeeded(output: "1")) }, now: now)
    }

    @Test(arguments: StoreBackend.all) func aFullPartitionIsSkippedAndTheOthersRunWhateverItsBacklog(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("sync", partitionLimit: 1), now: 0)
            // A big backlog of customer A first, then one job of B and one without a key.
            _ = try await store.enqueue((0..<200).map { partitioned("customer-A", input: $0) }, now: 1_000)
            _ = try await store.enqueue([partitioned("customer-B", input: 1_000), partitioned(nil, input: 2_000)], now: 1_000)
            let first = try await store.take("sync", limit: 10)
            #expect(first.map(\.input) == ["0", "1000", "2000"], "A runs one job; B and the unkeyed job are not held behind it")
            #expect(try await store.take("sync", limit: 10).isEmpty, "A is full, B and the rest have nothing waiting")
            try await succeed(store, first.filter { $0.input == "0" })
            #expect(try await store.take("sync", limit: 10).map(\.input) == ["1"], "A's next, once its running job ended")
        }
    }

    @Test(arguments: StoreBackend.all) func twoProcessesClaimingAtOnceNeverExceedAPartitionsLimit(_ backend: StoreBackend) async throws {
        try await withStore(backend) { first, directory in
            let second = try await backend.make(directory)
            try await first.configure(QueueConfiguration("sync", partitionLimit: 2), now: 0)
            _ = try await first.enqueue((0..<40).map { partitioned("host-\($0 % 4)", input: $0) }, now: 1_000)
            var finished = 0
            while finished < 40 {
                async let a = first.claim(queue: "sync", limit: 5, owner: "w1", leaseDuration: 30_000, now: 2_000)
                async let b = second.claim(queue: "sync", limit: 5, owner: "w2", leaseDuration: 30_000, now: 2_000)
                let (fromFirst, fromSecond) = try await (a, b)
                let running = try await first.jobs(JobFilter(states: [.running], queues: ["sync"], limit: 100))
                let perHost = Dictionary(grouping: running, by: { Int($0.input)! % 4 }).mapValues(\.count)
                #expect(perHost.values.allSatisfy { $0 <= 2 }, "running per host: \(perHost)")
                #expect(running.count == 8 || finished + running.count == 40, "every host at its limit: \(running.count) running")
                try await first.finish(
                    fromFirst.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .succeeded(output: "1")) }, now: 3_000)
                try await second.finish(
                    fromSecond.map { FinishedAttempt($0.attemptID, owner: "w2", outcome: .succeeded(output: "1")) }, now: 3_000)
                finished += fromFirst.count + fromSecond.count
            }
            #expect(try await first.count(JobFilter(states: [.succeeded])) == 40)
        }
    }

    @Test(arguments: StoreBackend.all) func theLimitIsStoredWithTheQueueAndKeysWithTheJobs(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("sync", partitionLimit: 3), now: 0)
            #expect(try await store.queue(named: "sync")?.partitionLimit == 3)
            // Without a limit, keys change nothing.
            _ = try await store.enqueue((0..<4).map { partitioned("same", input: $0) } , now: 1_000)
            try await store.configure(QueueConfiguration("sync"), now: 0)
            #expect(try await store.take("sync", limit: 10).count == 4)
        }
        #expect(throws: DurableQueueError.self) { try QueueConfiguration("q", partitionLimit: -1).validate() }
        var empty = job()
        empty.partitionKey = ""
        #expect(throws: DurableQueueError.self) { try empty.validate() }
    }
}
