import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The worker's "ledger" job type (see durableq-test-worker): a first step, "started ID ATTEMPT",
/// then a wait of `input` ms.
private struct SlowLedger: Job {
    static let name = "ledger"
    func run(_ input: Int, context: JobContext) async throws -> String { "" }
}

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct PoisonProcessTests {
    /// A job whose worker is killed (SIGKILL) during each of its attempts, with unlimited retries:
    /// attempt 1 commits the job's first step (progress, not counted); attempts 2, 3 and 4 make none,
    /// and the worker that takes the job back after the fourth kill fails it as a poison job, never
    /// starting it again.
    @Test(arguments: StoreBackend.all) func aJobWhoseWorkerIsKilledAtEachAttemptFailsAsPoison(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let queue = try await backend.queue(in: directory)
        let unlimited = EnqueueOptions(queue: backend.name == StoreBackend.sqlite.name ? "default" : "postgres", retry: .unlimited(backoff: .constant(.zero)))
        let job = try await queue.enqueue(SlowLedger.self, 600_000, options: unlimited)

        for attempt in 1...4 {
            let worker = try WorkerProcess(["work", path, logPath, "--lease-ms", "500", "--heartbeat-ms", "150"])
            #expect(await worker.waitForLine("started \(job.id) \(attempt)"), "attempt \(attempt)")
            worker.kill()
            _ = await worker.waitForExit()
            try await backend.settleAfterKill(ofProcess: worker.process.processIdentifier)
        }
        let errorLog = directory.path("last.err")
        let last = try WorkerProcess(["work", path, logPath, "--lease-ms", "500", "--heartbeat-ms", "150", "--until-done"], errorLog: errorLog)
        #expect(await last.waitForExit() == 0)
        #expect(!(await last.readOutput()).contains("started"), "the poison job never starts again")

        let record = try await queue.store.job(job.id)
        #expect(record.state == .failed && record.attempts == 4)
        #expect(record.error?.type == LostAttempts.poisonFailureType && record.error?.retryable == false)
        // An attempt a loaded machine did not start within its 500 ms lease is given back unrun and
        // uncounted ("the lease expired before the attempt started"): not an attempt that ended.
        let ends = try await queue.store.history(of: job.id).filter {
            $0.from == .running && $0.to != .running && $0.reason?.contains("before the attempt started") != true
        }
        #expect(ends.map(\.attempt) == [1, 2, 3, 4] && ends.map(\.to) == [.pending, .pending, .pending, .failed], "\(ends)")
        #expect(ends.allSatisfy { $0.reason?.contains("stopped during attempt") == true })
        #expect(ends.last?.reason?.contains("3 attempts in a row") == true, "\(ends.last?.reason ?? "-")")
        #expect(try await queue.store.jobs(.poisoned()).map(\.id) == [job.id])
        let error = await #expect(throws: DurableQueueError.self) { _ = try await queue.handle(SlowLedger.self, id: job.id).result(timeout: .seconds(5)) }
        #expect(error?.code == .jobFailed && error?.message.contains("poison job") == true, "\(String(describing: error))")
        #expect(try String(contentsOfFile: errorLog, encoding: .utf8).contains("failed a poison job"))
    }
}
