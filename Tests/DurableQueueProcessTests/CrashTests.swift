import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(5))) struct CrashTests {
    private static func now() -> Int64 { Date().millisecondsSince1970 }

    @Test(arguments: StoreBackend.all) func killingTheWorkerAtRandomMomentsLosesNothingAndRunsNothingTwice(_ backend: StoreBackend) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let count = 1_000
        let store = try await prefillRecordJobs(count, queue: "crash", on: backend, in: directory)

        // Jobs cancelled while no worker ran, with their attempt count at that moment.
        var cancelled: [JobID: Int] = [:]
        for round in 0..<20 {
            // Four jobs at a time: on a machine loaded by the other tests, the pause before a kill can
            // last seconds, and a worker running 16 at once could finish every job before any kill.
            let worker = try WorkerProcess(
                ["work", path, logPath, "--lease-ms", "600", "--job-ms", "80", "--max-jobs", "4", "--announce-starts"])
            #expect(await worker.waitForLine("ready"), "seed \(seed)")
            // Every other kill comes at a random moment after the first start, when there are jobs to
            // start (a worker can take longer than the longest pause to start anything, and kills that
            // interrupt nothing prove nothing); the others may come before any start.
            if round.isMultiple(of: 2), try await !store.jobs(JobFilter(state: .pending, limit: 1)).isEmpty {
                #expect(await worker.nextLine { $0.hasPrefix("started") } != nil, "seed \(seed)")
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 30...250, using: &random)))
            worker.kill()
            #expect(await worker.waitForExit() == SIGKILL, "seed \(seed)")
            try await backend.settleAfterKill(ofProcess: worker.process.processIdentifier)
            // Cancel one job the killed worker left running and two that wait.
            let running = try await store.jobs(JobFilter(state: .running, limit: count)).map(\.id)
            let pending = try await store.jobs(JobFilter(state: .pending, limit: count)).map(\.id)
            for id in [running.randomElement(using: &random), pending.randomElement(using: &random), pending.randomElement(using: &random)] {
                guard let id, cancelled[id] == nil else { continue }
                #expect(try await store.cancel(id, now: Self.now()) != .alreadyFinished(.succeeded))
                cancelled[id] = try await store.job(id).attempts
            }
        }
        let last = try WorkerProcess(["work", path, logPath, "--until-done", "--lease-ms", "600"])
        #expect(await last.waitForExit() == 0, "seed \(seed)")

        let log = try WorkLog(path: logPath)
        let records = try await store.jobs(JobFilter(limit: 10 * count))
        #expect(records.count == count, "no job lost (seed \(seed))")
        #expect(try await store.historyIsConsistent(), "seed \(seed)")
        var interrupted = 0
        var poisonJobs = 0
        for record in records {
            let started = log.startedAttempts(of: record.id.rawValue)
            let history = try await store.history(of: record.id)
            // The kills land on the same jobs round after round (the oldest pending first): a job whose
            // worker stopped during three attempts in a row fails as a poison job (record jobs save no
            // progress), unless a cancel ended it then; no other ends so.
            let ends = history.filter { $0.from == .running && $0.to != .running }
            let lostInARow = ends.reversed().prefix { $0.reason?.contains("lease expired") == true }.count
            let poisoned = record.state == .failed && record.error?.type == LostAttempts.poisonFailureType
            #expect([.succeeded, .cancelled].contains(record.state) || poisoned, "job \(record.id) ended \(record.state) (seed \(seed))")
            if poisoned {
                poisonJobs += 1
                #expect(lostInARow >= 3 && ends.suffix(3).map(\.attempt) == Array(record.attempts - 2...record.attempts), "job \(record.id): \(ends) (seed \(seed))")
                #expect(started.allSatisfy { $0 <= record.attempts }, "poison job \(record.id) started again (seed \(seed))")
            }
            #expect(ends.dropLast().reduce(into: (run: 0, most: 0)) { counts, end in
                counts.run = end.reason?.contains("lease expired") == true ? counts.run + 1 : 0
                counts.most = max(counts.most, counts.run)
            }.most < 3, "job \(record.id) lost three attempts in a row and ran again (seed \(seed))")
            // Every attempt that started was claimed and ended in the history; a killed one as "lease expired".
            for attempt in Set(started) {
                #expect(history.contains { $0.to == .running && $0.from == .pending && $0.attempt == attempt }, "job \(record.id) attempt \(attempt) (seed \(seed))")
                let end = history.first { $0.from == .running && $0.to != .running && $0.attempt == attempt }
                #expect(end != nil, "job \(record.id) attempt \(attempt) has no end in the history (seed \(seed))")
                // Handlers never throw and cancels happen only while no worker runs, so an attempt that
                // did not succeed was cut short by a kill.
                if let end, end.to != .succeeded {
                    interrupted += 1
                    #expect(end.reason?.contains("lease expired") == true, "job \(record.id) attempt \(attempt): \(end.reason ?? "-") (seed \(seed))")
                }
            }
            if record.state == .succeeded {
                // The attempt recorded as succeeded is the last that ever started.
                #expect(started.allSatisfy { $0 <= record.attempts }, "job \(record.id) ran again after succeeding (seed \(seed))")
                #expect(started.filter { $0 == record.attempts }.count == 1, "job \(record.id) (seed \(seed))")
                #expect(record.output == String(try JSONDecoder().decode([String: Int].self, from: Data(record.input.utf8))["index"] ?? -1))
            }
            if let attemptsAtCancel = cancelled[record.id] {
                #expect(record.state == .cancelled, "job \(record.id) was cancelled while no worker ran (seed \(seed))")
                #expect(started.allSatisfy { $0 <= attemptsAtCancel }, "job \(record.id) started after its cancel (seed \(seed))")
            }
        }
        print("crash test: seed \(seed), \(interrupted) interrupted attempts, \(cancelled.count) cancelled, \(poisonJobs) poison jobs, \(log.starts.count) starts")
        #expect(interrupted > 0, "the kills interrupted no attempt; the test proved nothing (seed \(seed))")
    }

    @Test(arguments: StoreBackend.all) func twoProcessesShareOneFileAndRunEachJobOnce(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let errors = [directory.path("worker-1.err"), directory.path("worker-2.err")]
        let store = try await backend.make(directory)
        let count = 600
        _ = try await store.enqueue(recordJobs(count, queue: "shared"), now: Self.now())

        // Nobody is killed or frozen here: a 5 s lease keeps a machine loaded by the other tests (a
        // heartbeat late by more than the default 1 s) from handing a running job to the other worker.
        let workers = try errors.map { try WorkerProcess(["work", path, logPath, "--until-done", "--lease-ms", "5000"], errorLog: $0) }
        for worker in workers { #expect(await worker.waitForExit() == 0) }

        let log = try WorkLog(path: logPath)
        let startedTwice = Dictionary(grouping: log.starts, by: \.job).filter { $0.value.count > 1 }.keys.sorted()
        var twice: [String] = []
        for id in startedTwice.prefix(3) {
            twice.append("\(id): " + (try await store.history(of: JobID(id))).map { "\($0.to.rawValue) \($0.reason ?? "")" }.joined(separator: ", "))
        }
        #expect(log.starts.count == count, "each job started exactly once; started twice: \(twice)")
        #expect(Set(log.starts.map(\.job)).count == count)
        #expect(Set(log.starts.map(\.pid)).count == 2, "both processes ran jobs")
        let counts = try #require(try await store.queueStatuses().first { $0.configuration.name == "shared" }?.counts)
        #expect(counts[.succeeded] == count)
        for errorLog in errors {
            let text = try String(contentsOfFile: errorLog, encoding: .utf8)
            #expect(!text.contains("locked"), "\(errorLog): \(text.split(separator: "\n").filter { $0.contains("locked") }.prefix(3))")
            #expect(!text.contains("could not"))
        }
    }
}
