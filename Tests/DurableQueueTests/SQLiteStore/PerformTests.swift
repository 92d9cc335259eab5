import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct PerformTests {
    @Test func aCallThatWouldWaitForAnotherProcessWaitsOnTheStoreQueueAndSucceeds() async throws {
        try await withWriteLockHeldElsewhere { store, other in
            let enqueue = Task { try await store.perform { try $0.enqueue(job(), now: 1_000) } }
            try await Task.sleep(for: .milliseconds(300))
            try other.execute("COMMIT")
            // Not SQLITE_BUSY at once: the inline attempt gave way to a wait within the busy timeout.
            let outcome = try await enqueue.value
            #expect(try await store.job(outcome.id).state == .pending)
        }
    }

    /// SQLite's default busy handler sleeps 1, 2, 5 … 100 ms between tries: released after 230 ms,
    /// the lock would be taken at 328 ms, every time. Waiting in short steps takes it as soon as it is
    /// free; the best of three tries is checked, so that one slow thread wake-up under load is not a
    /// failure.
    @Test func aCallWaitingForAnotherProcessGetsTheLockAsSoonAsItIsReleased() async throws {
        var lateness: [Duration] = []
        for _ in 0..<3 {
            try await withWriteLockHeldElsewhere { store, other in
                // The time is taken where the lock was waited for (the store's queue), not after the
                // task resumes: with the rest of the suite running, a cooperative thread can take long.
                let enqueue = Task {
                    try await store.perform { store in
                        _ = try store.enqueue(job(), now: 1_000)
                        return ContinuousClock.now
                    }
                }
                try await Task.sleep(for: .milliseconds(230))
                try other.execute("COMMIT")
                let released = ContinuousClock.now
                lateness.append(try await enqueue.value - released)
            }
        }
        #expect(lateness.min()! < .milliseconds(50), "took the lock \(lateness) after its release")
    }

    @Test func theBusyTimeoutStillBoundsTheWait() async throws {
        try await withWriteLockHeldElsewhere(busyTimeout: .milliseconds(200)) { store, _ in
            let start = ContinuousClock.now
            let error = await #expect(throws: DurableQueueError.self) {
                try await store.perform { try $0.enqueue(job(), now: 1_000) }
            }
            #expect(error?.code == .databaseLocked)
            #expect(ContinuousClock.now - start >= .milliseconds(200))

            // How long the wait itself lasts is timed where it happens, on this thread: timed around
            // the store call above, it includes task hops that can take seconds while the suite runs.
            let waiter = try SQLiteConnection(path: store.path, options: StorageOptions(busyTimeout: .milliseconds(200)))
            let waitStart = ContinuousClock.now
            #expect(throws: SQLiteError.self) { try waiter.execute("BEGIN IMMEDIATE") }
            let waited = ContinuousClock.now - waitStart
            #expect(waited >= .milliseconds(200) && waited < .seconds(2), "gave up after \(waited)")
        }
    }

    /// Runs `body` with a store on a new file and another connection to it (another process, as
    /// far as SQLite can tell) that holds the write lock until `body` commits on it.
    private func withWriteLockHeldElsewhere(
        busyTimeout: Duration = StorageOptions().busyTimeout,
        _ body: (SQLiteJobStore, SQLiteConnection) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path, options: StorageOptions(busyTimeout: busyTimeout))
        let other = try SQLiteConnection(path: path, options: StorageOptions())
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("ROLLBACK") }  // fails harmlessly once `body` committed
        try await body(store, other)
    }

    @Test func concurrentCallsAreSerializedWithNothingLost() async throws {
        try await withSQLiteStore { store, _ in
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
        try await withSQLiteStore(options: StorageOptions(durability: durability)) { store, directory in
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
        try await withSQLiteStore { store, directory in
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
