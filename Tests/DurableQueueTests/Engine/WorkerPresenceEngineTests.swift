import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Version 2 of "resize", reading version 1's inputs: a worker registering it runs versions 1–2.
private struct Resize: Job {
    static let name = "resize"
    static let version = 2
    static let inputMigrations = [InputMigration.from(1, as: Int.self) { $0 }]
    func run(_ input: Int, context: JobContext) async throws -> Int { input }
}

private struct Mail: Job {
    static let name = "mail"
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// A running worker writes which job types it runs at which versions, again about once a minute,
/// and deletes them when it stops; the tools read which waiting jobs no running worker runs. On
/// both stores.
@Suite(.timeLimit(.minutes(1))) struct WorkerPresenceEngineTests {
    @Test(arguments: StoreBackend.all) func aRunningWorkerSaysWhatItRunsUntilItStops(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let configuration = JobQueue.Configuration(workerID: "presence-test-worker", pollInterval: .milliseconds(20), timeSource: clock)
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Resize())
        queue.register(Mail())
        let newer = NewJob(kind: "resize", version: 3, input: "1")
        _ = try await queue.store.enqueue([newer], now: clock.nowMilliseconds)
        let started = clock.nowMilliseconds
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }

        try await eventually("the worker wrote what it runs") { try await queue.store.workerKinds().count == 2 }
        #expect(
            try await queue.store.workerKinds() == [
                WorkerKindRecord(workerID: "presence-test-worker", kind: "mail", versions: 1...1, startedAt: started, seenAt: started),
                WorkerKindRecord(workerID: "presence-test-worker", kind: "resize", versions: 1...2, startedAt: started, seenAt: started),
            ])
        #expect(
            try await queue.store.waitingJobCoverage(now: clock.nowMilliseconds).map(\.unrunNote) == [
                "1 job(s) of 'resize v3' on queue 'default' wait for a worker that runs version 3: running workers run 'resize' there at versions 1–2"
            ])

        // A minute later it has written them again, its start kept.
        clock.advance(by: .seconds(60))
        try await eventually("the worker wrote what it runs again") {
            try await queue.store.workerKinds().allSatisfy { $0.seenAt == started + 60_000 && $0.startedAt == started }
        }

        engine.cancel()
        _ = try? await engine.value
        #expect(try await queue.store.workerKinds().isEmpty, "a worker that stopped deleted its rows")
    }

    @Test(arguments: StoreBackend.all) func aWorkerLimitedToSomeQueuesRunsItsKindsOnThoseOnly(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let configuration = JobQueue.Configuration(workerID: "mail-worker", queues: ["mail"], pollInterval: .milliseconds(20), timeSource: clock)
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Mail())
        _ = try await queue.store.enqueue([NewJob(queue: "bulk", kind: "mail", input: #""hi""#)], now: clock.nowMilliseconds)
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }

        try await eventually("the worker wrote what it runs") { try await queue.store.workerKinds().count == 1 }
        #expect(try await queue.store.workerKinds().first?.queues == ["mail"])
        let coverage = try await queue.store.waitingJobCoverage(now: clock.nowMilliseconds)
        #expect(coverage.map(\.queue) == ["bulk"] && coverage.map(\.workers) == [0], "\(coverage)")
        #expect(coverage.first?.unrunNote?.hasSuffix("no running worker runs 'mail' there") == true, "\(coverage)")
    }

    @Test(arguments: StoreBackend.all) func aPausedProcessIsShownPausedNotStoppedAndRunningAgainWhenItResumes(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let configuration = JobQueue.Configuration(workerID: "app-worker", pollInterval: .milliseconds(20), timeSource: clock)
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Mail())
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        try await eventually("the worker wrote what it runs") { try await queue.store.workerKinds().count == 1 }

        await queue.pauseInThisProcess()
        let pausedAt = clock.nowMilliseconds
        #expect(try await queue.store.workerKinds().map(\.pausedAt) == [pausedAt], "the pause is written before the file closes")
        // Long past the time a running worker's rows go stale, the paused worker counts as paused.
        clock.advance(by: .seconds(600))
        _ = try await queue.store.enqueue([NewJob(kind: "mail", input: #""hi""#)], now: clock.nowMilliseconds)
        let coverage = try await queue.store.waitingJobCoverage(now: clock.nowMilliseconds)
        #expect(coverage.map(\.workers) == [0] && coverage.map(\.pausedWorkers) == [1], "\(coverage)")
        #expect(coverage.first?.unrunNote?.hasSuffix("the 1 worker(s) that run it there are paused") == true, "\(coverage)")

        await queue.resumeInThisProcess()
        let resumedAt = clock.nowMilliseconds
        try await eventually("the resumed worker wrote its rows again") {
            try await queue.store.workerKinds().map { [$0.pausedAt == nil, $0.seenAt == resumedAt] } == [[true, true]]
        }
    }

    @Test(arguments: StoreBackend.all) func aWorkerKilledOnThisHostOrUnseenForThreeMinutesRunsNothing(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let newer = NewJob(kind: "resize", version: 3, input: "1")
        let now = Date().millisecondsSince1970
        _ = try await queue.store.enqueue([newer], now: now)
        // A process of this host that has exited: its worker ID in the default form.
        let exited = Process()
        exited.executableURL = URL(fileURLWithPath: "/bin/true")
        _ = try await ProcessExit.run(exited).status()
        let killed = "\(LocalHost.name)-\(exited.processIdentifier)-0123abcd"
        let elsewhere = "another-host-4242-0123abcd"
        let runs = RunnableKinds(versions: ["resize": 3...3])
        try await queue.store.recordWorker(killed, runs: runs, queues: nil, startedAt: now, now: now)
        try await queue.store.recordWorker(elsewhere, runs: runs, queues: nil, startedAt: now, now: now)

        // The rows' time is the transactions' (the clock read once each held its locks).
        let seen = try #require(try await queue.store.workerKinds().map(\.seenAt).max())
        #expect(try await queue.store.waitingJobCoverage(now: seen).map(\.workers) == [1], "the other host's worker runs it")
        #expect(try await queue.store.waitingJobCoverage(now: seen + WorkerPresence.staleAfter).map(\.workers) == [1])
        let later = seen + WorkerPresence.staleAfter + 1
        #expect(
            try await queue.store.waitingJobCoverage(now: later).map(\.unrunNote) == [
                "1 job(s) of 'resize v3' on queue 'default' wait for a worker that runs version 3: no running worker runs 'resize' there"
            ])
        // A worker writing its rows deletes those not seen for an hour.
        try await queue.store.recordWorker("fresh", runs: ["mail"], queues: nil, startedAt: now, now: seen + WorkerPresence.forgottenAfter + 1)
        #expect(try await queue.store.workerKinds().map(\.workerID) == ["fresh"])
    }
}
