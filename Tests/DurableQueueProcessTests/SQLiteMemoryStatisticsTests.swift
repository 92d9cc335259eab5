import DurableQueueTestSupport
import Foundation
import Testing

/// SQLite's memory statistics are process-wide: each needs a fresh process.
@Suite(.timeLimit(.minutes(1))) struct SQLiteMemoryStatisticsTests {
    /// The first queue of a process turns the statistics off: no allocation inside SQLite takes the
    /// process-wide statistics mutex any more.
    @Test func aProcessWhoseFirstSQLiteUseIsAQueueKeepsNoMemoryStatistics() async throws {
        #expect(try await memoryUsed(after: []) == 0)
    }

    /// An application that initialized SQLite first keeps them (and `sqlite3_memory_used()`).
    @Test func anApplicationThatInitializedSQLiteFirstKeepsItsMemoryStatistics() async throws {
        #expect(try await memoryUsed(after: ["--initialize-first"]) > 0)
    }

    private func memoryUsed(after flags: [String]) async throws -> Int64 {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let worker = try WorkerProcess(["sqlite-memory", directory.path("queue.sqlite")] + flags)
        let line = try #require(await worker.nextLine { $0.hasPrefix("memory ") })
        #expect(await worker.waitForExit() == 0)
        return try #require(Int64(line.dropFirst("memory ".count)))
    }
}
