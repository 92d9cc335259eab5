import CDurableQueueCrashVFS
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A worker draining a queue loses its power (the tests' crash VFS drops every write no sync made
/// durable, then ends the process) at a chosen write or sync: the file opens again intact, its
/// history consistent, and another worker runs every job to its end. (Which commits a cut keeps
/// depends on when the store's checkpointer last synced the log: the enqueue test below checks
/// them.) The suite's short run; a thousand cuts per durability is Benchmarks/power-loss/run.py's.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct PowerLossTests {
    @Test(arguments: [Durability.processCrash, .powerLoss])
    func aPowerCutAtAWriteOrSyncLeavesAFileThatOpensIntactAndDrainsToTheEnd(durability: Durability) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = directory.path("original.sqlite")
        let count = 40
        do {
            let store = try SQLiteJobStore(path: original)
            _ = try await store.enqueue(
                batch: (0..<count).map { NewJob(queue: "disk", kind: "record", input: "{\"index\":\($0)}") }, now: 1_000)
        }
        var cutsThatStopped = 0
        for cut in [2, 5, 11, 23, 47, 95, 190] {
            let path = directory.path("cut-\(cut).sqlite")
            try FileManager.default.copyItem(atPath: original, toPath: path)
            let log = directory.path("cut-\(cut).log")
            let worker = try WorkerProcess(
                ["work", path, log, "--until-done", "--job-ms", "1"],
                environment: ["CRASHVFS_CUT_AT": "\(cut)", "CRASHVFS_DURABILITY": durability.rawValue])
            let status = await worker.waitForExit()
            #expect(status == Int32(CRASHVFS_EXIT_CODE) || status == 0, "cut \(cut): exit \(status)")
            if status == Int32(CRASHVFS_EXIT_CODE) { cutsThatStopped += 1 }

            var integrity = ""
            try SQLiteConnection(path: path, options: StorageOptions()).query("PRAGMA integrity_check") { integrity = $0.string(0) }
            #expect(integrity == "ok", "cut \(cut)")
            let store = try SQLiteJobStore(path: path)
            #expect(try await store.jobs(JobFilter(limit: 1_000)).count == count, "cut \(cut): every enqueued job is there")
            #expect(try await store.historyIsConsistent(), "cut \(cut)")

            let rerun = try WorkerProcess(["work", path, log, "--until-done", "--lease-ms", "300", "--job-ms", "1"])
            #expect(await rerun.waitForExit() == 0, "cut \(cut)")
            let records = try await store.jobs(JobFilter(limit: 1_000))
            #expect(records.count == count && records.allSatisfy { $0.state == .succeeded }, "cut \(cut)")
            #expect(try await store.historyIsConsistent(), "cut \(cut)")
        }
        #expect(cutsThatStopped >= 3, "the cuts must fall inside the drain (\(cutsThatStopped) did)")
    }

    /// A process enqueueing jobs one call at a time into a new file loses its power at a write or
    /// sync (the file's creation and schema included). The file opens (a schema cut halfway is
    /// finished), intact, and holds a prefix of the enqueues, never a later one without an earlier:
    /// with `.powerLoss` every enqueue whose call returned; with `.processCrash` maybe fewer.
    @Test(arguments: [Durability.processCrash, .powerLoss])
    func enqueuesCutByAPowerLossLeaveAPrefixAndWithPowerLossEveryOneThatReturned(durability: Durability) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var returnedInAll = 0
        var cutsThatStopped = 0
        for cut in [3, 8, 21, 55, 144, 377, 610] {
            let path = directory.path("enqueue-\(cut).sqlite")
            let worker = try WorkerProcess(
                ["enqueue", path, "300"], environment: ["CRASHVFS_CUT_AT": "\(cut)", "CRASHVFS_DURABILITY": durability.rawValue])
            let output = await worker.readOutput()
            let status = await worker.waitForExit()
            #expect(status == Int32(CRASHVFS_EXIT_CODE) || status == 0, "cut \(cut): exit \(status)")
            if status == Int32(CRASHVFS_EXIT_CODE) { cutsThatStopped += 1 }
            let returned = output.split(separator: "\n").compactMap { line in
                line.hasPrefix("enqueued ") ? Int64(line.dropFirst("enqueued ".count)) : nil
            }
            returnedInAll += returned.count

            let store = try SQLiteJobStore(path: path)
            let present = Set(try await store.jobs(JobFilter(limit: 1_000)).map(\.id.rawValue))
            #expect(present == Set((0..<Int64(present.count)).map { $0 + 1 }), "cut \(cut): a prefix, ids \(present.sorted())")
            if durability == .powerLoss {
                #expect(Set(returned).isSubset(of: present), "cut \(cut): \(returned.count) returned, \(present.count) kept")
            }
            var integrity = ""
            try SQLiteConnection(path: path, options: StorageOptions()).query("PRAGMA integrity_check") { integrity = $0.string(0) }
            #expect(integrity == "ok", "cut \(cut)")
            #expect(try await store.historyIsConsistent(), "cut \(cut)")
        }
        #expect(cutsThatStopped >= 3 && returnedInAll > 0, "the cuts must fall among the enqueues (\(cutsThatStopped) did)")
    }

    /// A worker's disk fails a few writes and syncs in the middle of its drain (claims, endings,
    /// history), then works again: the engine rides the fault out within its storage failure
    /// timeout and runs every job to its end, the file intact. An attempt whose end failed to commit
    /// may run again; none whose end was committed does (each job succeeded once, by its history).
    @Test(arguments: [10, 40, 90])
    func aDiskFailingForAWhileIsRiddenOutAndEveryJobRunsToItsEnd(failAt: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let count = 60
        do {
            let store = try SQLiteJobStore(path: path)
            _ = try await store.enqueue(
                batch: (0..<count).map { NewJob(queue: "disk", kind: "record", input: "{\"index\":\($0)}") }, now: 1_000)
        }
        let log = directory.path("work.log")
        let errors = directory.path("worker.err")
        let worker = try WorkerProcess(
            ["work", path, log, "--until-done", "--job-ms", "1", "--lease-ms", "2000", "--storage-timeout-ms", "60000"],
            errorLog: errors, environment: ["CRASHVFS_FAIL_AT": "\(failAt)", "CRASHVFS_FAIL_COUNT": "4"])
        let status = await worker.waitForExit()
        let logged = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(logged.suffix(2_000))")
        #expect(logged.contains("will try again"), "the faults must have reached the engine")

        var integrity = ""
        try SQLiteConnection(path: path, options: StorageOptions()).query("PRAGMA integrity_check") { integrity = $0.string(0) }
        #expect(integrity == "ok")
        let store = try SQLiteJobStore(path: path)
        let records = try await store.jobs(JobFilter(limit: 1_000))
        #expect(records.count == count && records.allSatisfy { $0.state == .succeeded })
        #expect(try await store.historyIsConsistent())
        for record in records {
            let endings = try await store.history(of: record.id).filter { $0.to == .succeeded }
            #expect(endings.count == 1, "job \(record.id) ended \(endings.count) times")
        }
    }
}
