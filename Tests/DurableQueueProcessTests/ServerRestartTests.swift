import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite
@testable import DurableQueuePostgres

/// The PostgreSQL server crashes (every server process killed with SIGKILL) in the middle of a drain
/// by three worker processes, then starts again: the engines reconnect by themselves and say why
/// they waited; nothing is lost, no job succeeds twice, nothing is left running.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3)), .enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct ServerRestartTests {
    @Test func threeWorkersGoOnByThemselvesAfterTheServerCrashesAndStartsAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await TestPostgresServer.Own.start()
        // A call the crash leaves without an answer fails after 5 s (the default is a minute).
        let url = server.url(schema: "restart") + "&call_timeout_ms=5000"
        let store = try await PostgresJobStore(PostgresStorage(url: url))
        let count = 600
        let ids = try await store.enqueue(
            recordJobs(count), now: Date().millisecondsSince1970
        ).map(\.id.rawValue)
        let log = directory.path("work.log")
        let errors = (0..<3).map { directory.path("worker-\($0).err") }
        let workers = try (0..<3).map { index in
            try WorkerProcess(
                ["work", url, log, "--until-done", "--lease-ms", "3000", "--job-ms", "30", "--max-jobs", "8", "--storage-timeout-ms", "60000"],
                errorLog: errors[index])
        }
        try await eventually("a third of the jobs started", seconds: 60) { (try WorkLog(path: log).starts.count) >= count / 3 }
        try server.crash()
        let crashedAt = Date().millisecondsSince1970
        // Down until every worker has noticed (a call failed and is tried again, or its listening
        // connection was refused) and a call in flight at the crash is being tried again.
        try await eventually("every worker noticed the server is down", seconds: 30) {
            let text = errors.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
            return text.allSatisfy { $0.contains("will try again") || $0.contains("Connection refused") }
                && text.contains { $0.contains("will try again") }
        }
        try await server.restart()
        let restartedAt = Date().millisecondsSince1970
        let deadline = ContinuousClock.now + .seconds(60)
        while workers.contains(where: \.process.isRunning), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        if workers.contains(where: \.process.isRunning) {
            let text = errors.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.map {
                $0.split(separator: "\n").filter { !$0.contains("PostgresNIO") && !$0.contains("job attempt ended") && !$0.contains("job started") }.suffix(12).joined(separator: "\n")
            }
            let states = Dictionary(grouping: try await store.jobs(JobFilter(limit: 10_000)), by: \.state).mapValues(\.count)
            Issue.record("workers still running a minute after the restart; jobs \(states):\n\(text.joined(separator: "\n---\n"))")
            for worker in workers { worker.kill() }
        }
        for worker in workers { #expect(await worker.waitForExit() == 0) }

        let after = try await PostgresJobStore(PostgresStorage(url: url))
        let jobs = try await after.jobs(JobFilter(limit: 10_000))
        #expect(jobs.count == count && jobs.allSatisfy { $0.state == .succeeded }, "\(Dictionary(grouping: jobs, by: \.state).mapValues(\.count))")
        var notOnce: [String] = []
        for job in ids {
            let history = try await after.history(of: JobID(job))
            // A note that a late report of an attempt was discarded stays in the state it found.
            guard history.filter({ $0.to == .succeeded && $0.from != .succeeded }).count != 1 else { continue }
            notOnce.append("\(job): " + history.map { "\($0.from?.rawValue ?? "nil")>\($0.to.rawValue) \($0.reason ?? "")" }.joined(separator: ", "))
        }
        #expect(notOnce.isEmpty, "jobs whose history shows other than one success:\n\(notOnce.joined(separator: "\n"))")
        // Each engine started jobs again within seconds of the restart.
        let work = try WorkLog(path: log)
        let firstAfter = work.starts.filter { $0.at > restartedAt }.map(\.at).min()
        let resumedIn = try #require(firstAfter) - restartedAt
        #expect(resumedIn < 10_000, "first start \(resumedIn) ms after the restart")
        let text = errors.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
        // Why it waited: a call that failed (and is tried again), or — when the pool held every call
        // until it could connect again, so that none failed — the connection it lost.
        let said = text.map { $0.contains("will try again") || $0.contains("lost the connection that listens") && $0.contains("Connection refused") }
        #expect(said.allSatisfy { $0 }, "each worker says why it waited:\n\(text.joined(separator: "\n---\n"))")
        #expect(text.contains { $0.contains("will try again") }, "a call in flight at the crash failed and was tried again")
        print("server crash: \(work.starts.count) starts for \(count) jobs, down \(restartedAt - crashedAt) ms, first start \(resumedIn) ms after the restart")
    }
}
