import Foundation
import Testing

@testable import DurableQueue

@Suite struct PerformTests {
    @Test func aCallThatWouldWaitForAnotherProcessWaitsOnTheStoreQueueAndSucceeds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path)
        let other = try Connection(path: path, options: StorageOptions())
        try other.execute("BEGIN IMMEDIATE")
        let enqueue = Task { try await store.perform { try $0.enqueue(job(), now: 1_000) } }
        try await Task.sleep(for: .milliseconds(300))
        try other.execute("COMMIT")
        // Not SQLITE_BUSY at once: the inline attempt gave way to a wait within the busy timeout.
        let outcome = try await enqueue.value
        #expect(try await store.job(outcome.id).state == .pending)
    }

    @Test func concurrentCallsAreSerializedWithNothingLost() async throws {
        try await withStore { store, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for caller in 0..<8 {
                    group.addTask {
                        for index in 0..<50 {
                            _ = try await store.perform { try $0.enqueue(job(input: "{\"c\":\(caller),\"i\":\(index)}"), now: 1_000) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let ids = try await store.perform { store in
                var ids: [Int64] = []
                try store.connection.query("SELECT id FROM jobs ORDER BY id") { ids.append($0.int64(0)) }
                return ids
            }
            #expect(ids == Array(1...400))
        }
    }

    @Test(arguments: Durability.allCases)
    func theWriteAheadLogIsCheckpointedOffTheCommittingThreadAndStaysBounded(durability: Durability) async throws {
        try await withStore(options: StorageOptions(durability: durability)) { store, directory in
            let input = "{\"padding\":\"" + String(repeating: "x", count: 1000) + "\"}"
            for _ in 0..<25 {
                _ = try await store.perform { try $0.enqueue(batch: Array(repeating: job(input: input), count: 1000), now: 1_000) }
            }
            try await Task.sleep(for: .milliseconds(200))  // the last scheduled checkpoint
            let wal = try FileManager.default.attributesOfItem(atPath: directory.path("jobs.sqlite-wal"))[.size] as? Int ?? 0
            let database = try FileManager.default.attributesOfItem(atPath: directory.path("jobs.sqlite"))[.size] as? Int ?? 0
            // 25,000 jobs of 1 kB are over 25 MB: without checkpoints the log would hold them all.
            #expect(database > 25_000_000)
            #expect(wal < 12_000_000)
        }
    }

    @Test func aLogPastTheFirstThresholdIsCheckpointedInTheBackground() async throws {
        try await withStore { store, directory in
            let input = "{\"padding\":\"" + String(repeating: "x", count: 1000) + "\"}"
            // About 6 MB: past the background threshold (4 MB), short of the blocking one (8 MB).
            for _ in 0..<5 {
                _ = try await store.perform { try $0.enqueue(batch: Array(repeating: job(input: input), count: 1000), now: 1_000) }
            }
            // Only a checkpoint writes pages into the database file itself.
            try await eventually("the background checkpoint copied the log") {
                let database = try FileManager.default.attributesOfItem(atPath: directory.path("jobs.sqlite"))[.size] as? Int ?? 0
                return database > 4_000_000
            }
        }
    }
}
