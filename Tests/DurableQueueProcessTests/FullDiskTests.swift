import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A worker whose file cannot grow (a full disk, here a file-size limit) stops with a clear error
/// instead of hanging, leaves the file intact, and its jobs run once there is room again.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(1))) struct FullDiskTests {
    @Test func aWorkerThatCannotWriteStopsWithTheErrorAndItsJobsRunOnceThereIsRoom() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let logPath = directory.path("work.log")
        let count = 200
        try await enqueueAndClose(count, path: path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection to close removes the log")

        // Room for a few commits in the log, then every write fails.
        let errorLog = directory.path("worker.err")
        let started = Date()
        let worker = try WorkerProcess(
            ["work", path, logPath, "--until-done", "--job-ms", "2", "--storage-timeout-ms", "1000"], errorLog: errorLog,
            fileSizeLimit: size / 1024 + 48)
        let status = await worker.waitForExit()
        let elapsed = Date().timeIntervalSince(started)
        let errors = try String(contentsOfFile: errorLog, encoding: .utf8)
        #expect(status == 1, "\(errors.suffix(2_000))")
        #expect(elapsed < 30, "the worker took \(elapsed) s to give up")
        let last = errors.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("durableq-test-worker: stopped after"), "\(last)")
        #expect(last.contains("disk I/O error"), "\(last)")
        #expect(errors.contains("will try again"), "failures are logged before the worker gives up")
        let ranBefore = try WorkLog(path: logPath).finishes.count
        #expect(ranBefore > 0 && ranBefore < count, "the limit must stop the worker part way (\(ranBefore) finished)")

        #expect(integrityCheck(ofSQLiteFileAt: path) == "ok")

        // With room again, another worker takes back what the first left running and finishes everything.
        let rerun = try WorkerProcess(["work", path, logPath, "--until-done", "--lease-ms", "300", "--job-ms", "2"])
        #expect(await rerun.waitForExit() == 0)
        let store = try SQLiteJobStore(path: path)
        let records = try await store.jobs(JobFilter(limit: 10 * count))
        #expect(records.count == count && records.allSatisfy { $0.state == .succeeded })
        #expect(try await store.historyIsConsistent())
    }

    private func enqueueAndClose(_ count: Int, path: String) async throws {
        let store = try SQLiteJobStore(path: path)
        _ = try await store.enqueue(
            batch: recordJobs(count, queue: "disk"), now: Date().millisecondsSince1970)
    }
}
