import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Version 1 of a job type "greet": a whole name.
private struct GreetV1: Job {
    struct Input: Codable, Sendable { var name: String }
    static let name = "greet"
    func run(_ input: Input, context: JobContext) async throws -> String { "hello \(input.name)" }
}

/// Version 2: the name split in two, reading version 1's inputs.
private struct GreetV2: Job {
    struct Input: Codable, Sendable { var first: String; var last: String }
    static let name = "greet"
    static let version = 2
    static let inputMigrations = [
        InputMigration.from(1, as: GreetV1.Input.self) { old in
            let parts = old.name.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw DurableQueueError(.invalidArgument, "'\(old.name)' is not a first and a last name") }
            return Input(first: parts[0], last: parts[1])
        }
    ]
    func run(_ input: Input, context: JobContext) async throws -> String { "hello \(input.first)" }
}

/// Version 2 of "greet" as a careless enqueuer stored it: a number where the names go.
private struct GreetV2Garbled: Job {
    static let name = "greet"
    static let version = 2
    func run(_ input: Int, context: JobContext) async throws -> String { "" }
}

/// Version 2 of "greet" whose output changed type: what a version 1 handle cannot read.
private struct GreetV2Counting: Job {
    static let name = "greet"
    static let version = 2
    func run(_ input: GreetV2.Input, context: JobContext) async throws -> Int { input.first.count }
}

/// Reads the output of its dependency "greeting" as version 1 of "greet" would; returns what it
/// read, or the message of a version mismatch.
private struct ReadsGreeting: Job {
    static let name = "reads-greeting"
    func run(_ input: Int, context: JobContext) async throws -> String {
        do {
            return try await context.dependencyOutput("greeting", of: GreetV1.self) ?? "none"
        } catch let error as DurableQueueError where error.code == .versionMismatch {
            return error.message
        }
    }
}

/// Jobs stored by one version of their type and run by another: claimed only by a worker that runs
/// their version, their inputs migrated, parked (no attempt spent) when no code here reads them; on
/// both stores.
@Suite(.timeLimit(.minutes(1))) struct JobVersionEngineTests {
    @Test(arguments: StoreBackend.all) func aJobOfANewerVersionWaitsPendingUntilAWorkerThatRunsItComes(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let newer = try await backend.queue(in: directory)
        let job = try await newer.enqueue(GreetV2.self, GreetV2.Input(first: "Ada", last: "Lovelace"))
        #expect(try await newer.store.job(job.id).version == 2)

        let old = try await backend.queue(in: directory)
        old.register(GreetV1())
        let report = try await old.drain()
        #expect(report.attemptsRun == 0 && report.jobsStillDue == 0, "not due for a worker that cannot run it")
        let waiting = try await old.store.job(job.id)
        #expect(waiting.state == .pending && waiting.attempts == 0)
        #expect(try await old.store.waitingJobsByKind() == [QueuedKindVersion(queue: "default", kind: "greet", version: 2): 1])

        newer.register(GreetV2())
        #expect(try await newer.drain().attemptsRun == 1)
        #expect(try await job.result() == "hello Ada")
    }

    @Test(arguments: StoreBackend.all) func anInputOfAnEarlierVersionIsMigratedBeforeTheHandlerReadsIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = try await backend.queue(in: directory)
        let jobs = try await old.enqueue(GreetV1.self, batch: [GreetV1.Input(name: "Ada Lovelace"), GreetV1.Input(name: "Grace Hopper")])
        let newer = try await backend.queue(in: directory)
        newer.register(GreetV2())
        #expect(try await newer.drain().attemptsRun == 2)
        #expect(try await newer.handle(GreetV2.self, id: jobs[0].id).result() == "hello Ada")
        #expect(try await newer.handle(GreetV2.self, id: jobs[1].id).result() == "hello Grace")
        let row = try await newer.store.job(jobs[0].id)
        #expect(row.version == 1 && row.attempts == 1, "the stored job keeps the version that enqueued it")
        let stored = try JobCodec.decode(GreetV1.Input.self, from: try await old.store.job(jobs[0].id).input)
        #expect(stored.name == "Ada Lovelace", "the stored input is not rewritten")
    }

    @Test(arguments: StoreBackend.all) func anInputNoCodeHereReadsIsParkedWithoutSpendingAnAttemptAndRetriedByHand(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        queue.register(GreetV2())
        let garbled = try await queue.enqueue(GreetV2Garbled.self, 7, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 5)))
        let unsplittable = try await queue.enqueue(GreetV1.self, GreetV1.Input(name: "Plato"))
        #expect(try await queue.drain().attemptsRun == 2)

        for id in [garbled.id, unsplittable.id] {
            let row = try await queue.store.job(id)
            #expect(row.state == .parked && row.attempts == 0, "\(row.state), \(row.attempts) attempts")
            #expect(row.error?.retryable == false && row.error?.message.contains("does not decode as 'greet' input") == true, "\(String(describing: row.error))")
            let last = try await queue.store.history(of: id).last
            #expect(last?.from == .running && last?.to == .parked && last?.attempt == 0, "\(String(describing: last))")
            #expect(last?.reason?.hasPrefix("parked: the stored input") == true, "\(last?.reason ?? "-")")
        }
        #expect(try await queue.store.job(unsplittable.id).error?.message.contains("version 1, read by version 2") == true)
        #expect(try await queue.drain().attemptsRun == 0, "no worker claims a parked job")
        #expect(try await queue.unfinishedJobCount() == 0, "a parked job waits for a person, not for the queue")
        #expect(try await queue.store.jobs(JobFilter(state: .parked)).map(\.id).sorted { $0.rawValue < $1.rawValue } == [garbled.id, unsplittable.id])

        // Code that reads it is deployed (here: the type that stored it), and the job is retried by hand.
        let fixed = try await backend.queue(in: directory)
        fixed.register(GreetV2Garbled())
        try await fixed.jobs.retry(garbled.id)
        #expect(try await fixed.store.job(garbled.id).state == .pending)
        #expect(try await fixed.drain().attemptsRun == 1)
        #expect(try await fixed.store.job(garbled.id).state == .succeeded)
        // The other is given up on.
        try await queue.jobs.cancel(unsplittable.id)
        #expect(try await queue.store.job(unsplittable.id).state == .cancelled)
    }

    @Test(arguments: StoreBackend.all) func anOutputAnotherVersionStoredThatDoesNotDecodeNamesBothVersions(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        queue.register(GreetV2Counting())
        let job = try await queue.enqueue(GreetV2Counting.self, GreetV2.Input(first: "Ada", last: "Lovelace"))
        #expect(try await queue.drain().attemptsRun == 1)
        #expect(try await job.result() == 3)
        let error = await #expect(throws: DurableQueueError.self) { _ = try await queue.handle(GreetV1.self, id: job.id).result() }
        #expect(error?.code == .versionMismatch, "\(String(describing: error))")
        #expect(error?.message.contains("version 2 of 'greet'") == true && error?.message.contains("version 1 cannot read it") == true)
    }

    @Test(arguments: StoreBackend.all) func aDependencysOutputAnotherVersionStoredNamesBothVersions(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        queue.register(GreetV2Counting())
        queue.register(ReadsGreeting())
        let greeting = try await queue.enqueue(GreetV2Counting.self, GreetV2.Input(first: "Ada", last: "Lovelace"))
        var options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 1))
        options.dependsOn = [Dependency("greeting", on: greeting)]
        let reader = try await queue.enqueue(ReadsGreeting.self, 0, options: options)
        #expect(try await queue.drain().attemptsRun == 2)
        let read = try await reader.outcome()
        #expect(read.output?.contains("was stored by version 2 of 'greet'; version 1 cannot read it") == true, "\(read)")
    }

    @Test(arguments: StoreBackend.all) func aScheduleKeepsTheVersionOfItsInput(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        try await queue.schedules.save(
            name: "greeting", GreetV2.self, input: GreetV2.Input(first: "Ada", last: "Lovelace"), rule: .every(.seconds(60), missed: .skip))
        let saved = try #require(try await queue.store.schedules(named: "greeting").first)
        #expect(saved.job.version == 2 && saved.job.kind == "greet")
    }
}
