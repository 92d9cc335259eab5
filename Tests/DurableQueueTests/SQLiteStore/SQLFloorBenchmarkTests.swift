import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// `Benchmarks/sql-floor/floor.c` claims to run the SQLite store's own statements: on a file the
/// store made, its enqueues and drains must leave what the store itself would have written.
@Suite struct SQLFloorBenchmarkTests {
    @Test func theFloorsStatementsLeaveAFileAsTheStoreWritesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let floor = directory.path("floor")
        let compiled = try runProcess(
            "/usr/bin/env",
            ["cc", "-O2", "-o", floor, packageRoot.appendingPathComponent("Benchmarks/sql-floor/floor.c").path, "-lsqlite3"])
        try #require(compiled.status == 0, "\(compiled.output)")
        let path = directory.path("jobs.sqlite")
        _ = try SQLiteJobStore(path: path)  // the file at the newest schema, as an application makes it

        let enqueued = try runProcess(floor, [path, "enqueue", "40"])
        #expect(enqueued.status == 0 && enqueued.output.contains(#""jobs":40"#), "\(enqueued.output)")
        let drained = try runProcess(floor, [path, "drain", "16"])
        #expect(drained.status == 0 && drained.output.contains(#""jobs":40"#), "\(drained.output)")

        let store = try SQLiteJobStore(path: path)
        let jobs = try await store.jobs(JobFilter(limit: 100))
        #expect(jobs.count == 40 && jobs.allSatisfy { $0.state == .succeeded })
        #expect(try await store.transitions(try #require(jobs.first).id) == ["nil>pending", "pending>running", "running>succeeded"])
        #expect(try await store.historyIsConsistent())
    }

    /// Runs `executable` with `arguments` and returns its exit status and what it printed (both streams).
    private func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        let exit = try ProcessExit.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (exit.wait(), String(decoding: data, as: UTF8.self))
    }
}
