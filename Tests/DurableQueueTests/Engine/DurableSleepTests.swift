import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Counts step bodies and records when the job woke.
private final class Trace: Sendable {
    private let state = Mutex<(runs: [String: Int], wokeAt: Int64?)>(([:], nil))
    func ran(_ name: String) { state.withLock { $0.runs[name, default: 0] += 1 } }
    func woke() { state.withLock { $0.wokeAt = Date().millisecondsSince1970 } }
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
        let trace = Trace()
        let job: JobID
        let sleptAt: Int64
        do {
            let queue = try await backend.queue(in: directory)
            queue.register(Reminder(trace: trace))
            job = try await queue.enqueue(Reminder.self, 3_000, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 1))).id
            sleptAt = Date().millisecondsSince1970
            let report = try await queue.drain()
            #expect(report.attemptsRun == 1 && report.nextDueAt != nil, "\(report)")
            let row = try await queue.store.job(job)
            #expect(row.state == .scheduled && row.attempts == 0 && row.leaseOwner == nil, "\(row.state), \(row.attempts) attempts")
            let reasons = try await queue.store.history(of: job).compactMap(\.reason)
            #expect(reasons.contains { $0.hasPrefix("sleeping for ") && $0.hasSuffix("(durable sleep)") }, "\(reasons)")
            // Too early: a drain runs nothing. (Three seconds of sleep: a loaded CI machine took more
            // than 800 ms between the first drain and this one.)
            let early = try await queue.drain()
            #expect(early.attemptsRun == 0, "a drain \(Date().millisecondsSince1970 - sleptAt) ms after going to sleep ran it")
        }
        // Another engine (the process restarted) runs it after its time.
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(Reminder(trace: trace))
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        #expect(try await queue.handle(Reminder.self, id: job).result(timeout: .seconds(10)) == "sent, followed up")
        let woke = try #require(trace.wokeAt)
        #expect(woke - sleptAt >= 3_000, "woke \(woke - sleptAt) ms after going to sleep")
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
