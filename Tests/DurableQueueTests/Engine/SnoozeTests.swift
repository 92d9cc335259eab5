import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Snoozes `snoozes` times (30 s each), then fails once (retryable), then returns the attempt number.
private struct Snoozer: Job {
    static let name = "snoozer"
    /// How many times the handler ran.
    final class Runs: Sendable {
        let count = Mutex(0)
    }
    let runs = Runs()

    func run(_ snoozes: Int, context: JobContext) async throws -> Int {
        let run = runs.count.withLock { count in
            count += 1
            return count
        }
        if run <= snoozes { throw JobSnooze(.seconds(30)) }
        if run == snoozes + 1 { throw TestFailure() }
        return context.attempt
    }
}

/// A handler's "not now": the job waits, its attempts untouched, and the history says so.
@Suite(.timeLimit(.minutes(1))) struct SnoozeTests {
    @Test(arguments: StoreBackend.all) func aSnoozeWaitsItsDelayWithoutUsingUpAnAttempt(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        let snoozer = Snoozer()
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(snoozer) }) { queue in
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero)))
            let handle = try await queue.enqueue(Snoozer.self, 3, options: options)
            for snooze in 1...3 {
                let start = time.now().millisecondsSince1970
                try await eventually("snooze \(snooze) recorded") {
                    try await queue.store.history(of: handle.id).filter { $0.reason == "snoozed for 30s" }.count == snooze
                }
                let record = try await queue.store.job(handle.id)
                #expect(record.state == .scheduled && record.runAt == start + 30_000, "snooze \(snooze): \(record.state) at \(record.runAt)")
                #expect(record.attempts == 0, "a snooze uses up no attempt")
                time.advance(by: .seconds(30))
            }
            // Two attempts are allowed: the failure after the snoozes still has its retry.
            #expect(try await handle.result() == 2)
            #expect(try await queue.store.job(handle.id).attempts == 2)
            let transitions = try await queue.store.transitions(handle.id)
            #expect(transitions.filter { $0 == "running>scheduled" }.count == 3)
            let snoozed = try await queue.store.history(of: handle.id).filter { $0.reason == "snoozed for 30s" }
            #expect(snoozed.map(\.attempt) == [0, 0, 0])
        }
    }

    @Test(arguments: StoreBackend.all) func aSnoozeOfNoTimeMakesTheJobPendingAtOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.add(job("q"))
            let claimed = try await store.take("q")
            let states = try await store.finish(
                [FinishedAttempt(claimed[0].attemptID, owner: "w1", outcome: .snoozed(after: 0))], now: 1_000)
            #expect(states[id] == .pending)
            let record = try await store.job(id)
            #expect(record.attempts == 0 && record.runAt == 1_000)
            #expect(try await store.history(of: id).last?.reason == "snoozed for 0s")
            #expect(try await store.take("q").map(\.attempt) == [1], "the next claim is attempt 1 again")
        }
    }
}
