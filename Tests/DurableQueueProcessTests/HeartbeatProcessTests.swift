import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Worker processes with short leases and fast heartbeats, none killed or frozen: a heartbeat never
/// waits on an ending, of its own process or another, so the server detects no deadlock, no live
/// worker loses a lease and no ending is held up.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(5))) struct HeartbeatProcessTests {
    @Test(arguments: StoreBackend.available([.sqlite, .postgresOwnDatabase]))
    func fastHeartbeatsNeitherDeadlockWithEndingsNorLoseALiveWorkersLeases(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let count = 3_000
        let leaseMilliseconds: Int64 = 3_000
        let store = try await prefillRecordJobs(count, queue: "beat", on: backend, in: directory)

        // Heartbeats every 10 ms, each over the up to 32 attempts a worker runs, while attempts of
        // up to 60 ms end all the time: the rows a heartbeat renews are those its endings lock.
        let arguments = [
            "work", path, logPath, "--until-done", "--lease-ms", "\(leaseMilliseconds)", "--heartbeat-ms", "10", "--job-ms", "60",
            "--max-jobs", "32",
        ]
        let workers = try (0..<3).map { try WorkerProcess(arguments, errorLog: directory.path("worker-\($0).err")) }
        for worker in workers { #expect(await worker.waitForLine("ready")) }
        for worker in workers { #expect(await worker.waitForExit() == 0) }
        for worker in workers { try await backend.settleAfterKill(ofProcess: worker.process.processIdentifier) }

        // Every heartbeat, and every other call of the workers to the store, succeeded.
        for index in workers.indices {
            let errors = (try? String(contentsOfFile: directory.path("worker-\(index).err"), encoding: .utf8)) ?? ""
            let failures = errors.split(separator: "\n").filter { $0.contains("could not") }
            #expect(failures.isEmpty, "worker \(index): \(failures.prefix(3).joined(separator: "\n"))")
        }
        let records = try await store.jobs(JobFilter(limit: 2 * count))
        #expect(records.count == count && records.allSatisfy { $0.state == .succeeded })
        #expect(try await store.historyIsConsistent())
        // No lease was taken back: every job ran once, in one attempt.
        let log = try WorkLog(path: logPath)
        #expect(log.starts.count == count, "\(log.starts.count - count) attempt(s) more than jobs: leases were lost")
        let returned = Dictionary(log.finishes.map { ([$0.job, Int64($0.attempt), Int64($0.pid)], $0.at) }, uniquingKeysWith: min)
        var latest: Int64 = 0
        var recovered: [JobID] = []
        for record in records {
            let history = try await store.history(of: record.id)
            if history.contains(where: { $0.reason?.contains("stopped during attempt") == true }) { recovered.append(record.id) }
            let success = try #require(history.first { $0.to == .succeeded }, "job \(record.id)")
            let pid = Int64(LocalWorker(success.worker ?? "")?.processID ?? -1)
            let end = try #require(returned[[record.id.rawValue, Int64(success.attempt), pid]], "job \(record.id): no handler returned")
            latest = max(latest, success.at - end)
        }
        #expect(recovered.isEmpty, "jobs taken back from a live worker: \(recovered)")
        // How long after its handler returned an ending was recorded, for the log: the ending is
        // stamped once it holds its locks, so this counts the queue of commits before it on a loaded
        // machine too (up to 2.4 s seen in full runs), not only lock waits. Those are judged below
        // from the server's own log (every lock wait past deadlock_timeout, 1 s) and statistics.
        print("heartbeat test (\(backend.name)): the latest ending recorded \(latest) ms after its handler returned")

        // No deadlock, and no lock waited for past deadlock_timeout: the server logs each (the
        // backend that found a deadlock, before its error reached the worker). Its statistics are
        // no witness: a backend leaves pg_stat_activity before it reports them, so no event says
        // they are complete.
        guard backend.name == StoreBackend.postgres.name else { return }
        let problems = try #require(
            try await TestPostgresServer.lockProblems(inDatabase: StoreBackend.ownDatabase(directory)),
            "the tests' own server has a log to read (not one named by DURABLEQUEUE_TEST_POSTGRES_PORT)")
        #expect(problems.isEmpty, "the server log tells of deadlocks or long lock waits:\n\(problems.joined(separator: "\n"))")
    }
}
