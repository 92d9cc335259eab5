import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Counts step bodies and records when, by the queue's clock, the job woke.
private final class Trace: Sendable {
    private let clock: any TimeSource
    private let state = Mutex<(runs: [String: Int], wokeAt: Int64?)>(([:], nil))
    init(clock: any TimeSource = SystemTimeSource()) { self.clock = clock }
    func ran(_ name: String) { state.withLock { $0.runs[name, default: 0] += 1 } }
    func woke() { state.withLock { $0.wokeAt = clock.nowMilliseconds } }
    subscript(_ name: String) -> Int { state.withLock { $0.runs[name, default: 0] } }
    var wokeAt: Int64? { state.withLock { $0.wokeAt } }
}

/// A reminder: a step, a durable sleep of `input` milliseconds, another step.
private struct Reminder: Job {
    static let name = "reminder"
    let trace: Trace

    func run(_ input: Int, context: JobContext) async throws -> String {
        let first = try await context.step("first") {
            trace.ran("first")
            return "sent"
        }
        try await context.sleep(for: .milliseconds(input))
        trace.woke()
        let second = try await context.step("second") {
            trace.ran("second")
            return "followed up"
        }
        return "\(first), \(second)"
    }
}

/// Durable sleeps: the job leaves `running` for `scheduled` without spending an attempt, survives
/// the engine that ran it, and goes on after its time without running its done steps again.
@Suite(.timeLimit(.minutes(1))) struct DurableSleepTests {
    @Test(arguments: StoreBackend.all) func aSleepingJobHoldsNothingSurvivesItsEngineAndGoesOnAfterItsTime(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The queue's clock moves only when the test moves it: "too early" cannot turn into "in
        // time" on a slow machine.
        let clock = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: clock)
        let trace = Trace(clock: clock)
        let job: JobID
        let sleptAt = clock.nowMilliseconds
        do {
            let queue = try await backend.queue(in: directory, configuration: configuration)
            queue.register(Reminder(trace: trace))
            job = try await queue.enqueue(Reminder.self, 3_000, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 1))).id
            let report = try await queue.drain()
            #expect(report.attemptsRun == 1 && report.nextDueAt == Date(millisecondsSince1970: sleptAt + 3_000), "\(report)")
            let row = try await queue.store.job(job)
            #expect(row.state == .scheduled && row.attempts == 0 && row.leaseOwner == nil, "\(row.state), \(row.attempts) attempts")
            let reasons = try await queue.store.history(of: job).compactMap(\.reason)
            #expect(reasons.contains { $0.hasPrefix("sleeping for ") && $0.hasSuffix("(durable sleep)") }, "\(reasons)")
            // A millisecond early: a drain runs nothing.
            clock.advance(by: .milliseconds(2_999))
            #expect(try await queue.drain().attemptsRun == 0)
        }
        // Another engine (the process restarted) runs it once its time has come.
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Reminder(trace: trace))
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        clock.advance(by: .milliseconds(1))
        #expect(try await queue.handle(Reminder.self, id: job).result() == "sent, followed up")
        #expect(trace.wokeAt == sleptAt + 3_000)
        #expect(trace["first"] == 1 && trace["second"] == 1)
        // One attempt allowed, and the sleep spent none.
        #expect(try await queue.store.job(job).attempts == 1)
        #expect(try await queue.handle(Reminder.self, id: job).steps().map(\.name) == ["first", "sleep 1", "second"])
    }

    @Test(arguments: StoreBackend.all) func aCancelReachesASleepingJobAtOnce(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = Trace()
        let queue = try await backend.queue(in: directory)
        queue.register(Reminder(trace: trace))
        let job = try await queue.enqueue(Reminder.self, 60_000)
        _ = try await queue.drain()
        #expect(try await job.state() == .scheduled)
        try await job.cancel()
        #expect(try await job.outcome(timeout: .seconds(5)).isCancelled)
        #expect(trace["second"] == 0)
    }
}
