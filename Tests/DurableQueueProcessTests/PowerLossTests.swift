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
        _ = try await SQLiteJobStore(path: original).enqueue(batch: recordJobs(count, queue: "disk"), now: 1_000)
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

            #expect(integrityCheck(ofSQLiteFileAt: path) == "ok", "cut \(cut)")
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
        for cut in [3, 8, 21, 55, 144, 377, 610, 900, 1_200] {
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
            #expect(integrityCheck(ofSQLiteFileAt: path) == "ok", "cut \(cut)")
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
        _ = try await SQLiteJobStore(path: path).enqueue(batch: recordJobs(count, queue: "disk"), now: 1_000)
        let log = directory.path("work.log")
        let errors = directory.path("worker.err")
        let worker = try WorkerProcess(
            ["work", path, log, "--until-done", "--job-ms", "1", "--lease-ms", "2000", "--storage-timeout-ms", "60000"],
            errorLog: errors, environment: ["CRASHVFS_FAIL_AT": "\(failAt)", "CRASHVFS_FAIL_COUNT": "4"])
        let status = await worker.waitForExit()
        let logged = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(logged.suffix(2_000))")
        #expect(logged.contains("will try again"), "the faults must have reached the engine")

        #expect(integrityCheck(ofSQLiteFileAt: path) == "ok")
        let store = try SQLiteJobStore(path: path)
        let records = try await store.jobs(JobFilter(limit: 1_000))
        #expect(records.count == count && records.allSatisfy { $0.state == .succeeded })
        #expect(try await store.historyIsConsistent())
        for record in records {
            let endings = try await store.history(of: record.id).filter { $0.to == .succeeded }
            #expect(endings.count == 1, "job \(record.id) ended \(endings.count) times")
        }
    }

    /// A worker using every feature (see the test worker's `mixed` command: plain jobs, unique keys,
    /// a keyed queue, dependencies, sequences, groups, durable steps, a transactional step, a
    /// schedule) loses its power while it enqueues and runs: the file opens intact with a prefix of
    /// the jobs; with `.powerLoss` every enqueue and every result the worker saw returned is there,
    /// and no job whose result it saw runs again; a worker without cuts then runs every job to its
    /// end, each succeeding once, each transactional step's row written once.
    @Test(arguments: [Durability.processCrash, .powerLoss])
    func aWorkerUsingEveryFeatureCutByAPowerLossKeepsWhatItReported(durability: Durability) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let base = directory.path("base.sqlite")
        let opener = try WorkerProcess(["open", base])
        #expect(await opener.waitForExit() == 0)
        var cutsThatStopped = 0
        var resultsSeen = 0
        for cut in [40, 130, 300, 520, 800, 1_050, 1_300] {
            let path = directory.path("mixed-\(cut).sqlite")
            try FileManager.default.copyItem(atPath: base, toPath: path)
            let log = directory.path("mixed-\(cut).log")
            let worker = try WorkerProcess(
                ["mixed", path, log, "12"], environment: ["CRASHVFS_CUT_AT": "\(cut)", "CRASHVFS_DURABILITY": durability.rawValue])
            let report = MixedReport(await worker.readOutput())
            let status = await worker.waitForExit()
            #expect(status == Int32(CRASHVFS_EXIT_CODE) || status == 0, "cut \(cut): exit \(status)")
            if status == Int32(CRASHVFS_EXIT_CODE) { cutsThatStopped += 1 }
            resultsSeen += report.succeeded.count

            #expect(integrityCheck(ofSQLiteFileAt: path) == "ok", "cut \(cut)")
            let store = try SQLiteJobStore(path: path)
            let ids = Set(try await store.jobs(JobFilter(limit: 10_000)).map(\.id.rawValue))
            #expect(ids == Set((0..<Int64(ids.count)).map { $0 + 1 }), "cut \(cut): a prefix, ids \(ids.sorted())")
            #expect(try await store.historyIsConsistent(), "cut \(cut)")
            // Whatever was lost is the latest commits: a result seen before the call creating a job
            // still in the file began was committed before that job, so it is there too.
            for (job, group) in report.resultsSeenBeforeACreation(of: ids) {
                if let job { #expect(try await store.job(JobID(job)).state == .succeeded, "cut \(cut): job \(job)'s result, older") }
                if let group { #expect(try Self.groupState(group, in: path) == "succeeded", "cut \(cut): group \(group)'s result, older") }
            }
            if durability == .powerLoss {
                #expect(report.enqueued.isSubset(of: ids), "cut \(cut): an enqueue that returned is missing")
                for id in report.succeeded {
                    #expect(try await store.job(JobID(id)).state == .succeeded, "cut \(cut): job \(id)'s result was seen")
                }
                for id in report.succeededGroups {
                    #expect(try Self.groupState(id, in: path) == "succeeded", "cut \(cut): group \(id)'s result was seen")
                }
            }

            let rerun = try WorkerProcess(["work", path, log, "--until-done", "--lease-ms", "300", "--job-ms", "1"])
            #expect(await rerun.waitForExit() == 0, "cut \(cut)")
            let rerunStarts = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("start ") && $0.split(separator: " ")[3] == "\(rerun.process.processIdentifier)" }
                .compactMap { Int64($0.split(separator: " ")[1]) }
            if durability == .powerLoss {
                #expect(Set(rerunStarts).isDisjoint(with: report.succeeded), "cut \(cut): a job whose result was seen ran again")
            }
            for id in ids.sorted() {
                let job = try await store.job(JobID(id))
                #expect(job.state == .succeeded, "cut \(cut): job \(id) ended \(job.state)")
                #expect(try await store.history(of: job.id).filter { $0.to == .succeeded }.count == 1, "cut \(cut): job \(id)")
            }
            #expect(try await store.historyIsConsistent(), "cut \(cut)")
            let ledger = try Self.ledgerRowsPerJob(in: path)
            let ledgerJobs = try await store.jobs(JobFilter(kinds: ["ledger"], limit: 100)).map(\.id.rawValue)
            #expect(ledgerJobs.allSatisfy { ledger[$0] == 1 } && ledger.count == ledgerJobs.count, "cut \(cut): ledger rows \(ledger)")
        }
        #expect(cutsThatStopped >= 5 && resultsSeen > 0, "the cuts must fall among the work (\(cutsThatStopped) did)")
    }

    /// What a `mixed` worker printed, in order: the ids whose enqueue, and whose result, returned.
    private struct MixedReport {
        var enqueued: Set<Int64> = []
        var succeeded: Set<Int64> = []
        var succeededGroups: Set<Int64> = []
        /// Each line that matters, in the order printed.
        private var lines: [(word: String, id: Int64, group: Bool)] = []

        init(_ output: String) {
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count >= 2, words[0] == "enqueued" || words[0] == "succeeded", let id = Int64(words[words.count - 1]) else { continue }
                let group = words.count == 3
                lines.append((String(words[0]), id, group))
                switch (words[0], group) {
                case ("enqueued", false): enqueued.insert(id)
                case ("succeeded", false): succeeded.insert(id)
                case ("succeeded", true): succeededGroups.insert(id)
                default: break
                }
            }
        }

        /// The job and group results seen before the call began that created a job among `present`.
        ///
        /// The worker enqueues one call at a time and prints each enqueue as it returns: a call
        /// begins after the previous one's line, so a result printed before that line was
        /// committed before anything the call committed. A job's first line is its creating call's.
        func resultsSeenBeforeACreation(of present: Set<Int64>) -> [(job: Int64?, group: Int64?)] {
            var seen: Set<Int64> = []
            var lastCreation: Int?
            for (index, line) in lines.enumerated() where line.word == "enqueued" && !line.group {
                if seen.insert(line.id).inserted && present.contains(line.id) { lastCreation = index }
            }
            guard let lastCreation,
                let previousEnqueue = lines[..<lastCreation].lastIndex(where: { $0.word == "enqueued" })
            else { return [] }
            return lines[..<previousEnqueue].filter { $0.word == "succeeded" }.map { line -> (job: Int64?, group: Int64?) in
                line.group ? (job: nil, group: line.id) : (job: line.id, group: nil)
            }
        }
    }

    private static func groupState(_ id: Int64, in path: String) throws -> String? {
        var state: String?
        try SQLiteConnection(path: path, options: StorageOptions()).query("SELECT state FROM groups WHERE id = ?", [id]) { state = $0.string(0) }
        return state
    }

    /// The ledger's rows per job (the transactional step's), none if the cut came before its table.
    private static func ledgerRowsPerJob(in path: String) throws -> [Int64: Int] {
        let connection = try SQLiteConnection(path: path, options: StorageOptions())
        guard try connection.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'ledger'") == 1 else { return [:] }
        var rows: [Int64: Int] = [:]
        try connection.query("SELECT job_id, count(*) FROM ledger GROUP BY job_id") { rows[$0.int64(0)] = Int($0.int64(1)) }
        return rows
    }
}
