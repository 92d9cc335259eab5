import Foundation
import Testing

@testable import DurableQueue

@Suite struct OrderingTests {
    /// Claims every job of `queue` one by one and returns their inputs in claim order.
    private func drain(_ store: SQLiteJobStore, _ queue: String, now: Int64 = 1_000) async throws -> [String] {
        var inputs: [String] = []
        while let next = try await store.take(queue, now: now).first {
            inputs.append(next.input)
            try await store.finish([FinishedAttempt(next.attemptID, owner: "w1", outcome: .succeeded(output: "null"))], now: now)
        }
        return inputs
    }

    @Test(arguments: QueueMode.allCases)
    func higherPriorityFirstThenTheQueuesMode(mode: QueueMode) async throws {
        try await withStore { store, _ async throws in
            try await store.configure(QueueConfiguration("q", mode: mode), now: 0)
            let plan: [(String, Priority)] = [("n1", .normal), ("l1", .low), ("h1", .high), ("n2", .normal), ("b1", .background), ("h2", .high), ("n3", .normal)]
            for (name, priority) in plan { _ = try await store.add(job("q", input: "\"\(name)\"", priority: priority)) }
            let expected =
                mode == .fifo
                ? ["h1", "h2", "n1", "n2", "n3", "l1", "b1"] : ["h2", "h1", "n3", "n2", "n1", "l1", "b1"]
            #expect(try await drain(store, "q") == expected.map { "\"\($0)\"" })
        }
    }

    @Test(arguments: QueueMode.allCases)
    func theOrderSurvivesClosingAndReopeningTheFile(mode: QueueMode) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        do {
            let store = try SQLiteJobStore(path: path)
            try await store.configure(QueueConfiguration("q", mode: mode), now: 0)
            for index in 0..<5 { _ = try await store.add(job("q", input: "\(index)")) }
            _ = try await store.add(job("q", input: "9", priority: .high))
        }
        let reopened = try SQLiteJobStore(path: path)
        let expected = mode == .fifo ? ["9", "0", "1", "2", "3", "4"] : ["9", "4", "3", "2", "1", "0"]
        #expect(try await drain(reopened, "q") == expected)
    }

    @Test func runAtIsRespectedAndJobsJoinInPriorityOrderWhenDue() async throws {
        try await withStore { store, _ async throws in
            _ = try await store.add(job(input: "\"later\"", runAt: 5_000), now: 1_000)
            _ = try await store.add(job(input: "\"urgent-later\"", priority: .high, runAt: 5_000), now: 1_000)
            _ = try await store.add(job(input: "\"now\""), now: 1_000)
            #expect(try await drain(store, "default", now: 4_999) == ["\"now\""])
            #expect(try await drain(store, "default", now: 5_000) == ["\"urgent-later\"", "\"later\""])
        }
    }

    @Test func changingTheModeReordersTheWaitingJobs() async throws {
        try await withStore { store, _ async throws in
            for index in 0..<4 { _ = try await store.add(job("q", input: "\(index)")) }
            try await store.configure(QueueConfiguration("q", mode: .lifo), now: 2)
            _ = try await store.add(job("q", input: "4"))
            #expect(try await drain(store, "q") == ["4", "3", "2", "1", "0"])
        }
    }

    @Test func claimingTheNextJobIsAnIndexWalkForFIFOAndLIFO() async throws {
        try await withStore { store, directory async throws in
            _ = try await store.enqueue(batch: (0..<2_000).map { job("q", input: "\($0)", priority: Priority(rawValue: $0 % 3)) }, now: 1)
            let connection = try Connection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            var details: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + SQLiteJobStore.nextPendingStatement, ["q"]) { details.append($0.string(3)) }
            #expect(details.contains { $0.contains("SEARCH jobs USING INDEX idx_jobs_next_pending") }, "\(details)")
            // Rows come in index order: no sort, so the claim reads only as many as it takes.
            #expect(!details.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(details)")
        }
    }
}
