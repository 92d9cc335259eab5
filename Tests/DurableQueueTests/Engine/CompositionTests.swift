import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Appends "+" to its input after a few milliseconds, counting attempts in a tracker.
struct Append: Job {
    static let name = "append"
    let tracker: RunTracker
    func run(_ input: String, context: JobContext) async throws -> String {
        tracker.started(input)
        defer { tracker.ended(input) }
        try await Task.sleep(for: .milliseconds(10))
        return input + "+"
    }
}

@Suite(.timeLimit(.minutes(1))) struct CompositionTests {
    @Test(arguments: StoreBackend.all) func aSequenceFeedsEachStepThePreviousOutputAndNamesResults(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Append(tracker: tracker)) }) { queue async throws in
            let handle = try await queue.enqueue(.sequence([
                .job(Append.self, "a", name: "first"),
                .jobUsingPreviousOutput(Append.self, name: "second"),
                .group([.job(Append.self, "x", name: "x"), .job(Append.self, "y", name: "y")], name: "pair"),
            ]))
            var states: [JobState] = []
            for try await state in handle.stateChanges { states.append(state) }
            #expect(states.first == .running && states.last == .succeeded)
            let result = try await handle.result()
            #expect(try result.output("first", as: String.self) == "a+")
            #expect(try result.output("second", as: String.self) == "a++")
            #expect(try result.group("pair")?.output("y", as: String.self) == "y+")
            // Strictly one after another: the pair started only after the second step.
            #expect(Array(tracker.startedInputs.prefix(2)) == ["a", "a+"])
        }
    }

    @Test(arguments: StoreBackend.all) func aFailingStepFailsTheSequenceAndTheRestNeverRuns(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Append(tracker: tracker)); $0.register(Flaky(retries: true)) }) { queue async throws in
            let handle = try await queue.enqueue(.sequence([
                .job(Append.self, "a"),
                .job(Flaky.self, 5, name: "flaky", options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero)))),
                .job(Append.self, "never"),
            ]))
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.code == .jobFailed)
            #expect(error?.message.contains("step 'flaky' failed") == true)
            let outcome = try await handle.outcome()
            #expect(outcome.children.map(\.state) == [.succeeded, .failed, .cancelled])
            #expect(!tracker.startedInputs.contains("never"))
        }
    }

    @Test(arguments: StoreBackend.all) func aGroupRunsNoMoreChildrenAtOnceThanItsLimit(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Append(tracker: tracker)) }) { queue async throws in
            let handle = try await queue.enqueue(.group((0..<12).map { .job(Append.self, "\($0)", name: "c\($0)") }, maxConcurrent: 3))
            let result = try await handle.result(timeout: .seconds(30))
            #expect(tracker.peak == 3)
            #expect(try (0..<12).map { try result.output("c\($0)", as: String.self) } == (0..<12).map { "\($0)+" })
        }
    }

    @Test(arguments: StoreBackend.all) func cancellingAGroupStopsItsRunningJobsAndCancelsTheRest(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Blocking(tracker: tracker)) }) { queue async throws in
            let handle = try await queue.enqueue(.sequence([
                .group([.job(Blocking.self, "a"), .job(Blocking.self, "b")], name: "both"),
                .job(Blocking.self, "after"),
            ]))
            try await eventually("both children run") { tracker.running == 2 }
            try await handle.cancel()
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.code == .cancelled)
            let outcome = try await handle.outcome()
            #expect(outcome.group("both")?.children.map(\.state) == [.cancelled, .cancelled])
            #expect(outcome.children.map(\.state) == [.cancelled, .cancelled])
            try await eventually("the tasks stopped") { tracker.running == 0 }
            #expect(!tracker.startedInputs.contains("after"))
        }
    }
}
