import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Workers frozen (SIGSTOP) past their leases while another process takes their jobs back, then
/// thawed: what an app suspension or a VM pause does.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(5))) struct FreezeTests {
    @Test(arguments: StoreBackend.all) func aWorkerFrozenPastItsLeaseNeverRecordsAStaleResultNorRunsAJobTwiceAtOnce(_ backend: StoreBackend) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let count = 1_000
        let store = try await prefillRecordJobs(count, queue: "freeze", on: backend, in: directory)

        // Handlers work for up to 300 ms in steps and ignore cancellation, so a frozen worker's
        // handlers go on and return values after its 300 ms leases have expired and the other worker
        // has taken their jobs back. The second worker runs only 4 jobs at once: jobs it takes back
        // from the first wait while the first, thawed, finishes its stale attempts and claims again.
        // A job may be frozen with its worker several times in a row: no limit of lost attempts
        // (poison jobs are PoisonProcessTests' concern).
        let arguments = [
            "work", path, logPath, "--until-done", "--lease-ms", "300", "--job-ms", "300", "--ignore-cancel", "--lost-attempt-limit", "0",
        ]
        let workers = try [16, 4].enumerated().map { index, jobs in
            try WorkerProcess(arguments + ["--max-jobs", "\(jobs)"], errorLog: directory.path("worker-\(index).err"))
        }
        for worker in workers { #expect(await worker.waitForLine("ready"), "seed \(seed)") }
        var freezes = 0
        for round in 0..<6 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...300, using: &random)))
            let worker = workers[round % 2]
            guard worker.process.isRunning else { break }
            worker.freeze()
            freezes += 1
            // Frozen until the other worker has taken back a job this one held: then its handlers,
            // thawed, return results that must be discarded. Bounded, and the bound decides nothing:
            // a freeze that caught the worker inside a write holds the file's lock (or rows, on
            // PostgreSQL), and nothing is taken back until the thaw.
            let frozen = worker.process.processIdentifier
            let held = try await store.jobs(JobFilter(state: .running, limit: count)).filter { LocalWorker($0.leaseOwner ?? "")?.processID == frozen }
            if !held.isEmpty {
                _ = try await holds(within: 10) {
                    var owners: [pid_t?] = []
                    for job in held { owners.append(LocalWorker(try await store.job(job.id).leaseOwner ?? "")?.processID) }
                    return owners.contains { $0 != frozen }
                }
            }
            worker.thaw()
        }
        for worker in workers { #expect(await worker.waitForExit() == 0, "seed \(seed)") }

        let log = try WorkLog(path: logPath)
        let records = try await store.jobs(JobFilter(limit: 10 * count))
        #expect(records.count == count && records.allSatisfy { $0.state == .succeeded }, "seed \(seed)")
        #expect(try await store.historyIsConsistent(), "seed \(seed)")
        let starts = Dictionary(grouping: log.starts, by: \.job)
        let finishes = Dictionary(log.finishes.map { ([$0.job, Int64($0.attempt), Int64($0.pid)], $0.at) }, uniquingKeysWith: min)
        let ends = Dictionary(log.ends.map { ([$0.job, Int64($0.attempt), Int64($0.pid)], $0.at) }, uniquingKeysWith: max)
        var discarded = 0
        var lateStarts = 0
        for record in records {
            let history = try await store.history(of: record.id)
            let success = try #require(history.first { $0.to == .succeeded && $0.from == .running }, "job \(record.id)")
            let successPID = Int64(LocalWorker(success.worker ?? "")?.processID ?? -1)
            // The success recorded is that of a handler that returned it, in the process named, before the commit.
            let returned = finishes[[record.id.rawValue, Int64(success.attempt), successPID]]
            #expect(returned.map { $0 <= success.at } == true,
                    "job \(record.id): attempt \(success.attempt) recorded as succeeded but its handler had not returned (seed \(seed))")
            let jobStarts = starts[record.id.rawValue] ?? []
            // No attempt claimed after the job's success runs: a handler that starts after the
            // success is one of an attempt before it, whose process was frozen between its last look
            // at the lease and the handler's first line (its result is discarded: below).
            let late = jobStarts.filter { $0.at > success.at }
            #expect(late.allSatisfy { $0.attempt < success.attempt }, "job \(record.id): \(late) after its success (seed \(seed))")
            lateStarts += late.count
            // Each attempt starts at most once, and one process never runs two attempts of the job at once.
            #expect(Set(jobStarts.map(\.attempt)).count == jobStarts.count, "job \(record.id) (seed \(seed))")
            for (_, inProcess) in Dictionary(grouping: jobStarts, by: \.pid) {
                let intervals = inProcess.sorted { $0.at < $1.at }.map { start in
                    (start: start.at, end: ends[[start.job, Int64(start.attempt), Int64(start.pid)]] ?? .max)
                }
                for (earlier, later) in zip(intervals, intervals.dropFirst()) {
                    #expect(later.start >= earlier.end, "job \(record.id) ran two attempts at once in one process (seed \(seed))")
                }
            }
            // Every other value a handler returned was discarded, and the history says so.
            for finish in log.finishes where finish.job == record.id.rawValue && finish.attempt != success.attempt {
                let noted = history.contains {
                    $0.attempt == finish.attempt && $0.from == $0.to && LocalWorker($0.worker ?? "")?.processID == finish.pid
                        && $0.reason?.hasSuffix("returned a result after its worker lost the job; discarded") == true
                }
                #expect(noted, "job \(record.id): the result of attempt \(finish.attempt) was neither recorded nor noted as discarded (seed \(seed))")
                if noted { discarded += 1 }
            }
        }
        print(
            "freeze test: seed \(seed), \(freezes) freezes, \(log.starts.count) starts, \(discarded) late results discarded, "
                + "\(lateStarts) stale handlers started after the job's success")
        #expect(freezes >= 4, "the workers finished before the freezes (seed \(seed))")
        #expect(discarded > 0, "no frozen handler returned a late result; the test proved nothing (seed \(seed))")
    }
}
