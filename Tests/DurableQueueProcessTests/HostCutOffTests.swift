import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite
@testable import DurableQueuePostgres

/// A worker on another host (a network namespace of its own, joined by a veth pair) is cut off from
/// the PostgreSQL server past its leases — its link taken down — while a worker on the server's host
/// drains the same queue; then the link comes back.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3)), .enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct HostCutOffTests {
    @Test func aHostCutOffLosesItsJobsToTheOthersStopsItsHandlersAndRecordsNothingStale() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await TestPostgresServer.Own.start(alsoListeningOn: namespace.hostAddress)
        // Calls the cut leaves unanswered fail after 1.5 s (the default is a minute).
        let local = server.url(schema: "cut") + "&call_timeout_ms=1500"
        let remote = server.url(schema: "cut", host: namespace.hostAddress) + "&call_timeout_ms=1500"
        let store = try await PostgresJobStore(PostgresStorage(url: local))
        let count = 48
        _ = try await store.enqueue(
            (0..<count).map { NewJob(queue: "default", kind: "record", input: "{\"index\":\($0)}", maxAttempts: nil) },
            now: Date().millisecondsSince1970)
        let log = directory.path("work.log")
        // Handlers of up to 12 s (they stop when cancelled); leases of 1.5 s renewed every 0.5 s;
        // an engine gives up on the store only after two minutes.
        let arguments = [
            "--until-done", "--lease-ms", "1500", "--heartbeat-ms", "500", "--job-ms", "12000",
            "--storage-timeout-ms", "120000",
        ]
        let cutErrors = directory.path("cut.err")
        let cutOff = try WorkerProcess(["work", remote, log] + arguments + ["--max-jobs", "8"], errorLog: cutErrors, namespace: namespace)
        #expect(await cutOff.waitForLine("ready"))
        let cutPID = cutOff.process.processIdentifier
        try await eventually("the other host runs 8 jobs", seconds: 30) {
            try WorkLog(path: log).starts.filter { $0.pid == cutPID }.count >= 8
        }
        // The worker here has room for every job: it takes each job back as soon as it may.
        let other = try WorkerProcess(["work", local, log] + arguments + ["--max-jobs", "64"], errorLog: directory.path("other.err"))
        #expect(await other.waitForLine("ready"))
        try namespace.cutOff()
        let cutAt = Date().millisecondsSince1970
        // Until the worker here has taken back every job the host was running at the cut, and each
        // of those handlers on the cut-off host has ended (stopped, or returned by itself).
        try await eventually("every job in flight at the cut is taken back and its handler there ended", seconds: 60) {
            let work = try WorkLog(path: log)
            let ended = Set(work.ends.filter { $0.pid == cutPID }.map { [$0.job, Int64($0.attempt)] })
            let inFlight = work.starts.filter { $0.pid == cutPID && $0.at < cutAt }.filter { start in
                !(work.ends.contains { $0.pid == cutPID && $0.job == start.job && $0.attempt == start.attempt && $0.at <= cutAt })
            }
            return inFlight.allSatisfy { lost in
                ended.contains([lost.job, Int64(lost.attempt)])
                    && work.starts.contains { $0.job == lost.job && $0.pid != cutPID && $0.attempt > lost.attempt }
            }
        }
        try namespace.restore()
        let restoredAt = Date().millisecondsSince1970
        let workers = [cutOff, other]
        let deadline = ContinuousClock.now + .seconds(100)
        while workers.contains(where: \.process.isRunning), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        if workers.contains(where: \.process.isRunning) {
            Issue.record("workers still running 100 s after the link came back")
            for worker in workers { worker.kill() }
        }
        // The host that was cut off came back by itself and saw the work done.
        for worker in workers { #expect(await worker.waitForExit() == 0) }

        let jobs = try await store.jobs(JobFilter(limit: 1_000))
        #expect(jobs.count == count && jobs.allSatisfy { $0.state == .succeeded }, "\(Dictionary(grouping: jobs, by: \.state).mapValues(\.count))")
        let work = try WorkLog(path: log)
        let finishes = Set(work.finishes.map { [$0.job, Int64($0.attempt), Int64($0.pid)] })
        let ends = Dictionary(work.ends.map { ([$0.job, Int64($0.attempt), Int64($0.pid)], $0) }, uniquingKeysWith: { $1 })
        // The attempts the host was running when it was cut off.
        let inFlight = work.starts.filter { start in
            start.pid == cutPID && start.at < cutAt && (ends[[start.job, Int64(start.attempt), Int64(start.pid)]]?.at ?? .max) > cutAt
        }
        #expect(inFlight.count >= 4, "the cut-off host was running \(inFlight.count) jobs at the cut")
        var stopped = 0
        for job in jobs {
            let history = try await store.history(of: job.id)
            let successes = history.filter { $0.to == .succeeded && $0.from == .running }
            #expect(successes.count == 1, "job \(job.id): \(successes.count) successes")
            guard let success = successes.first else { continue }
            let pid = Int64(LocalWorker(success.worker ?? "")?.processID ?? -1)
            // The success recorded is that of a handler that returned it.
            #expect(finishes.contains([job.id.rawValue, Int64(success.attempt), pid]), "job \(job.id): attempt \(success.attempt) in \(pid)")
            guard let lost = inFlight.first(where: { $0.job == job.id.rawValue }) else { continue }
            // The other host took the job back while the host was cut off, and its attempt is the one
            // recorded: the cut-off host's recorded nothing.
            let retaken = work.starts.contains { $0.job == lost.job && $0.pid != cutPID && $0.attempt > lost.attempt && $0.at < restoredAt }
            #expect(retaken, "job \(job.id), in flight at the cut, was not started again by the other host while the host was cut off")
            #expect(success.attempt > lost.attempt && pid != Int64(cutPID), "job \(job.id) in flight at the cut: success of attempt \(success.attempt) in \(pid)")
            // Its handler learnt the attempt was lost while the host was still cut off: it was stopped
            // (an end without a value) before the link came back, or had returned by itself.
            let key = [lost.job, Int64(lost.attempt), Int64(lost.pid)]
            let end = try #require(ends[key], "job \(job.id): the lost attempt never ended")
            if !finishes.contains(key) {
                #expect(end.at < restoredAt, "job \(job.id): the handler of the lost attempt ran on until \(end.at - restoredAt) ms after the link came back")
                stopped += 1
            }
        }
        #expect(stopped > 0, "no handler of the cut-off host was still running when its lease ran out; the test proved nothing")
        let cutLog = (try? String(contentsOfFile: cutErrors, encoding: .utf8)) ?? ""
        #expect(cutLog.contains("expired before the store could renew them; their handlers are stopped"))
        print("host cut off: \(inFlight.count) jobs in flight at the cut, \(stopped) handlers stopped while cut off, \(work.starts.count) starts for \(count) jobs, cut \(restoredAt - cutAt) ms")
    }
}
