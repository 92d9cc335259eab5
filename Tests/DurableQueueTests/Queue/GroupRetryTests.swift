import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A gate the test opens: jobs fail while it is closed.
private final class FailureGate: Sendable {
    private let open = Mutex(false)
    func opens() { open.withLock { $0 = true } }
    var isOpen: Bool { open.withLock { $0 } }
}

/// Adds one to its input (or to the previous step's output) while the gate is open; fails for good while it is closed.
private struct Gated: Job {
    static let name = "gated"
    let gate: FailureGate
    func run(_ input: Int, context: JobContext) async throws -> Int {
        guard gate.isOpen else { throw TestFailure() }
        return input + 1
    }
    func shouldRetry(after error: any Error) -> Bool { false }
}

/// Adds one to its input.
private struct AddOne: Job {
    static let name = "add-one"
    func run(_ input: Int, context: JobContext) async throws -> Int { input + 1 }
}

@Suite(.timeLimit(.minutes(2))) struct GroupRetryTests {
    private func running(_ backend: StoreBackend, gate: FailureGate, _ body: (JobQueue) async throws -> Void) async throws {
        try await withRunningQueue(
            on: backend, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)),
            register: {
                $0.register(Gated(gate: gate))
                $0.register(AddOne())
            }, body)
    }

    @Test(arguments: StoreBackend.all) func aFailedSequenceRunsAgainFromItsFailedStepWithTheStepsAfterIt(_ backend: StoreBackend) async throws {
        let gate = FailureGate()
        try await running(backend, gate: gate) { queue in
            let sequence = try await queue.enqueue(
                .sequence(
                    [
                        .job(AddOne.self, 0, name: "first"), .jobUsingPreviousOutput(Gated.self, name: "gated"),
                        .jobUsingPreviousOutput(AddOne.self, name: "last"),
                    ], name: "chain"))
            let failed = try await sequence.outcome()
            #expect(failed.state == .failed)
            let children = try await queue.store.jobs(JobFilter(limit: 10, order: .oldestFirst)).map(\.id)
            #expect(try await children.asyncMap { try await queue.store.job($0).state } == [.succeeded, .failed, .cancelled])
            await #expect(throws: DurableQueueError.self) { try await queue.jobs.retryFailed(in: GroupID(4242)) }

            gate.opens()
            let changed = try await queue.jobs.retryFailed(in: sequence.id)
            #expect(Set(changed.keys) == [children[1], children[2]], "\(changed)")
            let result = try await sequence.result(timeout: .seconds(10))
            #expect(try result.output("last", as: Int.self) == 3)
            #expect(try await queue.store.job(children[0]).attempts == 1, "the step that succeeded did not run again")
            #expect(try await queue.store.history(of: children[1]).contains { $0.reason == "retry of the failed jobs of group \(sequence.id)" })
            // A group that succeeded has nothing to retry.
            await #expect(throws: DurableQueueError.self) { try await queue.jobs.retryFailed(in: sequence.id) }
        }
    }

    @Test(arguments: StoreBackend.all) func aConcurrentGroupRunsOnlyItsFailedChildrenAgain(_ backend: StoreBackend) async throws {
        let gate = FailureGate()
        try await running(backend, gate: gate) { queue in
            let group = try await queue.enqueue(
                .group([.job(AddOne.self, 1, name: "a"), .job(Gated.self, 10, name: "b"), .job(AddOne.self, 100, name: "c")], name: "fan"))
            #expect(try await group.outcome().state == .failed)
            gate.opens()
            let changed = try await queue.jobs.retryFailed(in: group.id)
            #expect(changed.count == 1)
            let result = try await group.result(timeout: .seconds(10))
            #expect(try result.output("a", as: Int.self) == 2 && result.output("b", as: Int.self) == 11 && result.output("c", as: Int.self) == 101)
            let a = try await queue.store.jobs(JobFilter(kinds: ["add-one"], limit: 10)).map(\.attempts)
            #expect(a == [1, 1], "the children that succeeded ran once")
        }
    }
}
