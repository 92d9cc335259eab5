import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct OrderingTests {
    /// Claims every job of `queue` one by one and returns their inputs in claim order.
    private func drain(_ store: any JobStore, _ queue: String, now: Int64 = 1_000) async throws -> [String] {
        var inputs: [String] = []
        while let next = try await store.take(queue, now: now).first {
            inputs.append(next.input)
            try await store.finish([FinishedAttempt(next.attemptID, owner: "w1", outcome: .succeeded(output: "null"))], now: now)
        }
        return inputs
    }

    @Test(arguments: StoreBackend.all, QueueMode.allCases)
    func higherPriorityFirstThenTheQueuesMode(_ backend: StoreBackend, mode: QueueMode) async throws {
        try await withStore(backend) { store, _ async throws in
            try await store.configure(QueueConfiguration("q", mode: mode), now: 0)
            let plan: [(String, Priority)] = [("n1", .normal), ("l1", .low), ("h1", .high), ("n2", .normal), ("b1", .background), ("h2", .high), ("n3", .normal)]
            for (name, priority) in plan { _ = try await store.add(job("q", input: "\"\(name)\"", priority: priority)) }
            let expected =
                mode == .fifo
                ? ["h1", "h2", "n1", "n2", "n3", "l1", "b1"] : ["h2", "h1", "n3", "n2", "n1", "l1", "b1"]
            #expect(try await drain(store, "q") == expected.map { "\"\($0)\"" })
        }
    }

    /// A batch over a LIFO queue and a throttled one: each job gets its own queue's order and
    /// throttle interval, as jobs enqueued one at a time do (a batch reads each queue's settings once).
    @Test(arguments: StoreBackend.all)
    func aBatchOverSeveralQueuesTakesEachQueuesOrderAndThrottle(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            try await store.configure(QueueConfiguration("newest", mode: .lifo), now: 0)
            try await store.configure(QueueConfiguration("slow", throttle: Throttle(.milliseconds(700))), now: 0)
            let jobs = (0..<6).map { index in job(["newest", "slow", "plain"][index % 3], input: "\(index)") }
            let ids = try await store.enqueue(batch: jobs, now: 1).map(\.id)
            #expect(try await drain(store, "newest") == ["3", "0"])
            #expect(try await drain(store, "plain") == ["2", "5"])
            #expect(try await store.job(ids[1]).throttleIntervalMilliseconds == 700)
            #expect(try await store.job(ids[2]).throttleIntervalMilliseconds == 0)
        }
    }

    @Test(arguments: StoreBackend.all, QueueMode.allCases)
    func theOrderSurvivesClosingAndReopeningTheFile(_ backend: StoreBackend, mode: QueueMode) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await backend.make(directory)
            try await store.configure(QueueConfiguration("q", mode: mode), now: 0)
            for index in 0..<5 { _ = try await store.add(job("q", input: "\(index)")) }
            _ = try await store.add(job("q", input: "9", priority: .high))
        }
        let reopened = try await backend.make(directory)
        let expected = mode == .fifo ? ["9", "0", "1", "2", "3", "4"] : ["9", "4", "3", "2", "1", "0"]
        #expect(try await drain(reopened, "q") == expected)
    }

    @Test(arguments: StoreBackend.all) func runAtIsRespectedAndJobsJoinInPriorityOrderWhenDue(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            _ = try await store.add(job(input: "\"later\"", runAt: 5_000), now: 1_000)
            _ = try await store.add(job(input: "\"urgent-later\"", priority: .high, runAt: 5_000), now: 1_000)
            _ = try await store.add(job(input: "\"now\""), now: 1_000)
            #expect(try await drain(store, "default", now: 4_999) == ["\"now\""])
            #expect(try await drain(store, "default", now: 5_000) == ["\"urgent-later\"", "\"later\""])
        }
    }

    @Test(arguments: StoreBackend.all) func changingTheModeReordersTheWaitingJobs(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            for index in 0..<4 { _ = try await store.add(job("q", input: "\(index)")) }
            try await store.configure(QueueConfiguration("q", mode: .lifo), now: 2)
            _ = try await store.add(job("q", input: "4"))
            #expect(try await drain(store, "q") == ["4", "3", "2", "1", "0"])
        }
    }

}
