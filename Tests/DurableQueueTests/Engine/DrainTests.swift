import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Sleeps for its input (milliseconds), honouring cancellation, and counts its starts.
private struct Sleeper: Job {
    static let name = "sleeper"
    let tracker: RunTracker
    func run(_ milliseconds: Int, context: JobContext) async throws -> String {
        tracker.started("attempt \(context.attempt)")
        defer { tracker.ended("") }
        try await Task.sleep(for: .milliseconds(milliseconds))
        return "slept"
    }
}

/// A latch a handler waits on without heeding cancellation (and without spinning, which would
/// take a thread of the cooperative pool from the engine and the test).
private final class Latch: Sendable {
    private let state = Mutex((open: false, waiters: [CheckedContinuation<Void, Never>]()))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        for waiter in state.withLock({ state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }) { waiter.resume() }
    }
}

/// Waits for its latch, ignoring cancellation as a careless handler does, then returns "done".
private struct Deaf: Job {
    static let name = "deaf"
    let latch: Latch
    let tracker: RunTracker
    func run(_ input: String, context: JobContext) async throws -> String {
        tracker.started(input)
        defer { tracker.ended(input) }
        await latch.wait()
        return "done"
    }
}

/// Waits for its latch ignoring cancellation, then saves progress, recording whether the save was
/// accepted (as a "saved" or "refused" start in its tracker).
private struct SavingDeaf: Job {
    static let name = "saving-deaf"
    let latch: Latch
    let tracker: RunTracker
    func run(_ input: String, context: JobContext) async throws -> String {
        tracker.started("attempt \(context.attempt)")
        defer { tracker.ended("") }
        await latch.wait()
        do {
            try await context.saveProgress(0.5)
            tracker.started("saved")
        } catch {
            tracker.started("refused")
        }
        return "done"
    }
}

/// A job that needs the network (it never runs here).
private struct Fetch: Job {
    static let name = "fetch"
    static let needsNetwork = true
    func run(_ url: String, context: JobContext) async throws -> String { url }
}

/// `drain(until:gracePeriod:)` and `runDueJobs()`, as an app's background time uses them: they
/// return when nothing is due, at a deadline, or within the grace period of a cancellation,
/// giving interrupted jobs back uncounted, and renew leases while they run.
@Suite(.timeLimit(.minutes(1))) struct DrainTests {
    @Test(arguments: StoreBackend.all) func aCancelledDrainReturnsWithinItsGracePeriodAndGivesTheJobBackUncounted(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(maxConcurrentJobs: 1))
        queue.register(Blocking(tracker: tracker))
        let first = try await queue.enqueue(Blocking.self, "first")
        let second = try await queue.enqueue(Blocking.self, "second")

        let drain = Task { try await queue.drain(gracePeriod: .seconds(5)) }
        try await eventually("the first job runs") { tracker.running == 1 }
        let cancelled = ContinuousClock.now
        drain.cancel()
        let report = try await value(of: drain, within: 5, "the drain returns after its cancellation") {
            "\(tracker.startedInputs.count) starts"
        }
        let took = ContinuousClock.now - cancelled

        #expect(took < .seconds(5), "returned \(took) after its cancellation")
        #expect(report.ending == .cancelled && report.attemptsRun == 0 && report.jobsGivenBack == 1 && report.jobsStillDue == 2)
        #expect(report.nextDueAt != nil && !report.waitingWorkNeedsNetwork)
        #expect(tracker.startedInputs == ["first"], "claimed again after its cancellation: \(tracker.startedInputs.count) starts")
        let record = try await queue.store.job(first.id)
        #expect(record.state == .pending && record.attempts == 0)
        #expect(try await queue.store.transitions(first.id) == ["nil>pending", "pending>running", "running>pending"])
        #expect(try await queue.store.history(of: first.id).last?.reason == "given back at shutdown")
        #expect(try await queue.store.transitions(second.id) == ["nil>pending"])
    }

    @Test(arguments: StoreBackend.all) func aHandlerThatIgnoresTheStopIsAbandonedAfterTheGracePeriodAndItsOutputDiscarded(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let latch = Latch()
        defer { latch.open() }
        let queue = try await backend.queue(in: directory)
        queue.register(Deaf(latch: latch, tracker: tracker))
        let stubborn = try await queue.enqueue(Deaf.self, "deaf")

        let drain = Task { try await queue.drain(gracePeriod: .milliseconds(300)) }
        try await eventually("the job runs") { tracker.running == 1 }
        let cancelled = ContinuousClock.now
        drain.cancel()
        let report = try await value(of: drain, within: 5, "the drain returns after its cancellation") { "\(tracker.running) running" }
        let took = ContinuousClock.now - cancelled

        // Returns (a handler that ignored the stop would otherwise hold it forever): after the grace
        // period, with time to give the job back on a loaded machine.
        #expect(took >= .milliseconds(300) && took < .seconds(5), "returned \(took) after its cancellation")
        #expect(report.ending == .cancelled && report.jobsGivenBack == 1 && report.attemptsRun == 0)
        #expect(try await queue.store.history(of: stubborn.id).last?.reason == "given back: its handler did not stop within the grace period")
        // The abandoned handler returns later: nothing of it is recorded.
        latch.open()
        try await eventually("the abandoned handler returns") { tracker.running == 0 }
        try await Task.sleep(for: .milliseconds(50))
        let record = try await queue.store.job(stubborn.id)
        #expect(record.state == .pending && record.attempts == 0 && record.output == nil)
    }

    /// The job an abandoned handler ran is given back with its attempt number, and the next drain
    /// here runs it under the same number and owner: the abandoned handler must not write for it.
    @Test(arguments: StoreBackend.all) func anAbandonedHandlerCannotSaveProgressForTheNextAttemptOfItsJob(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let latch = Latch()
        defer { latch.open() }
        let queue = try await backend.queue(in: directory)
        queue.register(SavingDeaf(latch: latch, tracker: tracker))
        _ = try await queue.enqueue(SavingDeaf.self, "job")

        let first = Task { try await queue.drain(gracePeriod: .milliseconds(100)) }
        try await eventually("the first attempt runs") { tracker.running == 1 }
        first.cancel()
        #expect(try await first.value.jobsGivenBack == 1)
        let second = Task { try await queue.drain() }
        try await eventually("the next attempt runs") { tracker.startedInputs.count == 2 }
        latch.open()
        _ = try await second.value
        try await eventually("both handlers tried to save") {
            tracker.startedInputs.filter { $0 == "saved" || $0 == "refused" }.count == 2
        }

        let inputs = tracker.startedInputs
        #expect(inputs.filter { $0 == "attempt 1" }.count == 2, "\(inputs)")
        #expect(inputs.filter { $0 == "saved" }.count == 1 && inputs.filter { $0 == "refused" }.count == 1, "\(inputs)")
    }

    @Test(arguments: StoreBackend.all) func aDrainStopsAtItsDeadlineAndGivesTheRunningJobBack(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let queue = try await backend.queue(in: directory)
        queue.register(Blocking(tracker: tracker))
        let blocking = try await queue.enqueue(Blocking.self, "long")

        let started = ContinuousClock.now
        let report = try await queue.drain(until: Date().addingTimeInterval(3))
        let took = ContinuousClock.now - started

        #expect(took >= .milliseconds(2_950) && took < .seconds(8), "returned after \(took)")
        #expect(tracker.startedInputs == ["long"])
        #expect(report.ending == .deadline && report.jobsGivenBack == 1 && report.jobsStillDue == 1, "\(report)")
        let record = try await queue.store.job(blocking.id)
        #expect(record.state == .pending && record.attempts == 0)
    }

    @Test(arguments: StoreBackend.all) func aDrainRunsWhatIsDueAtItsConcurrencyAndReportsWhatWaits(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(maxConcurrentJobs: 4))
        queue.register(Sleeper(tracker: tracker))
        queue.register(Fetch())
        for _ in 0..<8 { _ = try await queue.enqueue(Sleeper.self, 100) }
        let enqueued = Date()
        _ = try await queue.enqueue(Sleeper.self, 1, options: EnqueueOptions(delay: .seconds(60)))

        let report = try await queue.drain()

        #expect(report.ending == .nothingDue && report.attemptsRun == 8 && report.jobsGivenBack == 0 && report.jobsStillDue == 0)
        #expect(tracker.peak == 4, "ran \(tracker.peak) at once")
        let next = try #require(report.nextDueAt)
        #expect(abs(next.timeIntervalSince(enqueued) - 60) < 5, "next due \(next), enqueued \(enqueued)")
        #expect(!report.waitingWorkNeedsNetwork)

        _ = try await queue.enqueue(Fetch.self, "https://example.com/", options: EnqueueOptions(delay: .seconds(600)))
        let later = try await queue.drain()
        #expect(later.ending == .nothingDue && later.attemptsRun == 0 && later.waitingWorkNeedsNetwork)
    }

    @Test(arguments: StoreBackend.all) func runDueJobsReturnsWhenCancelledInsteadOfClaimingAgain(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let queue = try await backend.queue(in: directory)
        queue.register(Blocking(tracker: tracker))
        let first = try await queue.enqueue(Blocking.self, "first")
        _ = try await queue.enqueue(Blocking.self, "second")

        let run = Task { try await queue.runDueJobs() }
        try await eventually("the first job runs") { tracker.running == 1 }
        run.cancel()
        let ran = try await value(of: run, within: 5, "runDueJobs() returns after its cancellation") {
            "\(tracker.startedInputs.count) starts"
        }

        #expect(ran == 0)
        #expect(tracker.startedInputs == ["first"])
        #expect(try await queue.store.transitions(first.id) == ["nil>pending", "pending>running", "running>pending"])
    }

    /// A job longer than its lease, run by `runDueJobs()` while another queue on the same store
    /// (an app extension's) keeps looking for expired leases: the heartbeats keep it.
    @Test(arguments: StoreBackend.all) func runDueJobsRenewsTheLeaseOfALongAttempt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let configuration = JobQueue.Configuration(leaseDuration: .seconds(2), heartbeatInterval: .milliseconds(100))
        let queue = try await backend.queue(in: directory, configuration: configuration)
        let other = try await backend.queue(in: directory, configuration: configuration)
        for each in [queue, other] { each.register(Sleeper(tracker: tracker)) }
        let long = try await queue.enqueue(Sleeper.self, 3_500)

        let returned = Gate()
        let run = Task {
            defer { returned.isOpen.withLock { $0 = true } }
            return try await queue.runDueJobs()
        }
        try await eventually("the job runs") { tracker.running == 1 }
        while !returned.isOpen.withLock({ $0 }) {
            _ = try await other.drain()
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await run.value == 1)

        #expect(tracker.startedInputs == ["attempt 1"], "started \(tracker.startedInputs)")
        let record = try await queue.store.job(long.id)
        #expect(record.state == .succeeded && record.attempts == 1)
        let history = try await queue.store.history(of: long.id).map { "\($0.to.rawValue): \($0.reason ?? "")" }
        #expect(try await queue.store.transitions(long.id) == ["nil>pending", "pending>running", "running>succeeded"], "\(history)")
    }
}
