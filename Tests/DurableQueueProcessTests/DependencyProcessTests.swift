import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct DependencyProcessTests {
    /// A chain of three "record" jobs on three queues, each waiting for the one before; the worker
    /// running the first is killed (SIGKILL) mid-attempt, and so is the next one, later: the waits
    /// survive in the store, and a last worker runs each job once, each after the one it waits for.
    @Test(arguments: StoreBackend.all) func dependencyWaitsSurviveKilledWorkersAndEachJobRunsOnceAfterItsDependency(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let store = try await backend.make(directory)
        let now = Date().millisecondsSince1970
        var chain: [JobID] = []
        for (index, queue) in ["first", "second", "third"].enumerated() {
            var job = NewJob(queue: queue, kind: "record", input: "{\"index\":\(index)}", maxAttempts: nil)
            if let previous = chain.last { job.dependencies = [Dependency("previous", on: previous)] }
            chain.append(try await store.enqueue([job], now: now)[0].id)
        }
        #expect(try await chain.asyncMap { try await store.job($0).state } == [.pending, .blocked, .blocked])

        for _ in 0..<2 {
            // Attempts of up to two seconds: the kill lands mid-attempt.
            let worker = try WorkerProcess(["work", path, logPath, "--lease-ms", "500", "--job-ms", "2000", "--announce-starts"])
            #expect(await worker.nextLine { $0.hasPrefix("started ") } != nil)
            worker.kill()
            _ = await worker.waitForExit()
            try await backend.settleAfterKill(ofProcess: worker.process.processIdentifier)
            #expect(try await store.job(chain[2]).state == .blocked, "the last job still waits")
        }
        let last = try WorkerProcess(["work", path, logPath, "--until-done", "--lease-ms", "500", "--job-ms", "20"])
        #expect(await last.waitForExit() == 0)

        let log = try WorkLog(path: logPath)
        // A handler may finish and its worker be killed before the commit: the attempt the store
        // recorded is the one that counts, and it ran once.
        var recorded: [JobID: WorkLog.Entry] = [:]
        for (index, id) in chain.enumerated() {
            let record = try await store.job(id)
            #expect(record.state == .succeeded)
            let finishes = log.finishes.filter { $0.job == id.rawValue && $0.attempt == record.attempts }
            #expect(finishes.count == 1, "job \(id)'s recorded attempt finished once: \(finishes)")
            recorded[id] = finishes.first
            guard index > 0, let previous = recorded[chain[index - 1]] else { continue }
            let starts = log.starts.filter { $0.job == id.rawValue }
            #expect(!starts.isEmpty && starts.allSatisfy { $0.at >= previous.at }, "job \(id) started after job \(chain[index - 1]) finished")
            let unblocked = try #require(try await store.history(of: id).first { $0.from == .blocked })
            #expect(unblocked.to == .pending && unblocked.reason == "its 1 dependency ended")
        }
    }
}

/// The test's view of the worker's "record" job type (see durableq-test-worker).
private struct Record: Job {
    struct Input: Codable, Sendable { var index: Int }
    static let name = "record"
    func run(_ input: Input, context: JobContext) async throws -> Int { input.index }
}

@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct BatchCallbackProcessTests {
    /// A batch of 30 jobs with an onComplete callback; workers killed (SIGKILL) at random moments
    /// while it runs: the callback job is the batch's one, starts only after every job of the batch
    /// has ended, and succeeds once.
    @Test(arguments: StoreBackend.all) func aBatchCallbackFiresOnceAfterTheBatchWhateverTheKills(_ backend: StoreBackend) async throws {
        let seed = SeededGenerator.testSeed
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let logPath = directory.path("work.log")
        let queue = try await backend.queue(in: directory)
        let batch = try await queue.enqueue(
            // Retries without limit: a job killed three times would otherwise use up its attempts and fail.
            Record.self, batch: (0..<30).map { Record.Input(index: $0) },
            options: EnqueueOptions(queue: "batch", retry: .unlimited(backoff: .constant(.zero))),
            callbacks: BatchCallbacks(onComplete: .job(Record.self, Record.Input(index: 999), options: EnqueueOptions(queue: "callbacks"))))
        let callback = try #require(batch.onComplete)

        // The kills land on the oldest jobs round after round: no limit of lost attempts (poison jobs
        // are PoisonProcessTests' concern; a poison job would end the batch failed).
        for _ in 0..<4 {
            let worker = try WorkerProcess([
                "work", path, logPath, "--lease-ms", "500", "--job-ms", "300", "--max-jobs", "4", "--announce-starts", "--lost-attempt-limit", "0",
            ])
            #expect(await worker.nextLine { $0.hasPrefix("started ") } != nil, "seed \(seed)")
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
            worker.kill()
            _ = await worker.waitForExit()
            try await backend.settleAfterKill(ofProcess: worker.process.processIdentifier)
        }
        let last = try WorkerProcess(["work", path, logPath, "--until-done", "--lease-ms", "500", "--job-ms", "30", "--lost-attempt-limit", "0"])
        #expect(await last.waitForExit() == 0, "seed \(seed)")

        let log = try WorkLog(path: logPath)
        let lastBatchEnd = try #require(log.finishes.filter { batch.jobs.map(\.rawValue).contains($0.job) }.map(\.at).max())
        let unfinished = batch.jobs.filter { id in !log.finishes.contains { $0.job == id.rawValue } }
        var histories: [String] = []
        for id in unfinished {
            histories.append("job \(id): " + (try await queue.store.history(of: id)).map { "\($0.from.map { "\($0)" } ?? "-")→\($0.to) \($0.reason ?? "")" }.joined(separator: "; "))
        }
        #expect(unfinished.isEmpty, "every job of the batch finished (seed \(seed)): \(histories)")
        let callbackStarts = log.starts.filter { $0.job == callback.rawValue }
        #expect(!callbackStarts.isEmpty && callbackStarts.allSatisfy { $0.at >= lastBatchEnd }, "seed \(seed): \(callbackStarts)")
        let record = try await queue.store.job(callback)
        #expect(record.state == .succeeded)
        #expect(
            log.finishes.filter { $0.job == callback.rawValue && $0.attempt == record.attempts }.count == 1,
            "the callback's recorded attempt ran once (seed \(seed))")
        #expect(try await queue.store.count(JobFilter(kinds: ["record"])) == 31, "one callback job, never another")
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
