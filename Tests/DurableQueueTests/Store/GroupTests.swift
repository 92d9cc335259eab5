import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Sequences and concurrent groups in the store, with explicit times.
@Suite struct GroupTests {
    private func step(_ input: String = "0", name: String? = nil, takesPrevious: Bool = false) -> CompositionNode {
        .job(job("q", input: input), name: name, takesPreviousOutput: takesPrevious)
    }

    private func succeed(_ store: any JobStore, _ job: ClaimedJob, output: String, now: Int64 = 2_000) async throws {
        try await store.finish([FinishedAttempt(job.attemptID, owner: "w1", outcome: .succeeded(output: output))], now: now)
    }

    @Test(arguments: StoreBackend.all) func aSequenceRunsItsStepsInOrderPassingOutputsOn(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.enqueue(
                composition: .group(.sequence, [step("1", name: "a"), step(name: "b", takesPrevious: true), step("3", name: "c")],
                                    maxConcurrent: 0, name: nil), now: 1_000)
            #expect(try await store.groupState(id) == .running)
            let first = try await store.take("q", limit: 10)
            #expect(first.map(\.input) == ["1"])
            try await succeed(store, first[0], output: "11")
            let second = try await store.take("q", limit: 10)
            #expect(second.map(\.input) == ["11"])  // the previous step's output
            #expect(try await store.groupState(id) == .running)
            try await succeed(store, second[0], output: "22")
            let third = try await store.take("q", limit: 10)
            #expect(third.map(\.input) == ["3"])
            try await succeed(store, third[0], output: "\"done\"")

            let result = try await store.groupResult(id)
            #expect(result.state == .succeeded)
            #expect(canonicalJSON(result.output) == #"{"a":11,"b":22,"c":"done"}"#)
            #expect(try result.output("b", as: Int.self) == 22)
            #expect(try await store.transitions(second[0].id) == ["nil>blocked", "blocked>pending", "pending>running", "running>succeeded"])
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func aGroupIsPrunedWithItsJobsOnlyOnceItHasEnded(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.enqueue(
                composition: .group(.sequence, [step(name: "a"), step(name: "b")], maxConcurrent: 0, name: nil), now: 1_000)
            try await succeed(store, try await store.take("q")[0], output: "1", now: 2_000)
            // The first step finished long ago, but its sequence runs on: nothing of it goes.
            #expect(try await store.prune(state: .succeeded, finishedBefore: 10_000, limit: 500, now: 10_000) == 0)
            #expect(try await store.groupState(id) == .running)
            try await succeed(store, try await store.take("q")[0], output: "2", now: 3_000)
            #expect(try await store.groupState(id) == .succeeded)
            // Both steps and the group.
            #expect(try await store.prune(state: .succeeded, finishedBefore: 10_000, limit: 500, now: 10_000) == 3)
            let error = await #expect(throws: DurableQueueError.self) { _ = try await store.groupState(id) }
            #expect(error?.code == .groupNotFound, "\(String(describing: error))")
            #expect(try await store.jobs(JobFilter()).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.all) func aFailedStepFailsTheSequenceAndCancelsTheStepsAfterIt(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.enqueue(
                composition: .group(.sequence, [step(name: "a"), step(name: "b"), step(name: "c")], maxConcurrent: 0, name: nil),
                now: 1_000)
            try await succeed(store, try await store.take("q")[0], output: "1")
            let second = try await store.take("q")[0]
            try await store.finish(
                [FinishedAttempt(second.attemptID, owner: "w1", outcome: .failed(JobFailure(type: "E", message: "boom", retryable: false)))],
                now: 3_000)
            let result = try await store.groupResult(id)
            #expect(result.state == .failed)
            #expect(result.reason == "step 'b' failed")
            #expect(result.children.map(\.state) == [.succeeded, .failed, .cancelled])
            #expect(try await store.take("q", limit: 10).isEmpty)
            #expect(throws: DurableQueueError.self) { try result.output("c", as: Int.self) }
        }
    }

    @Test(arguments: StoreBackend.all) func aConcurrentGroupKeepsItsLimitAndEndsWhenEveryChildHas(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.enqueue(
                composition: .group(.concurrent, (0..<5).map { step("\($0)", name: "c\($0)") }, maxConcurrent: 2, name: nil),
                now: 1_000)
            var running = try await store.take("q", limit: 10)
            #expect(running.map(\.input) == ["0", "1"])
            try await store.finish(
                [FinishedAttempt(running[0].attemptID, owner: "w1", outcome: .failed(JobFailure(type: "E", message: "x", retryable: false)))],
                now: 2_000)
            running = Array(running.dropFirst()) + (try await store.take("q", limit: 10))
            #expect(running.map(\.input) == ["1", "2"])  // a failed child does not stop the others
            while !running.isEmpty {
                try await succeed(store, running.removeFirst(), output: "1")
                running += try await store.take("q", limit: 10)
                #expect(running.count <= 2)
            }
            let result = try await store.groupResult(id)
            #expect(result.state == .failed)
            #expect(result.children.map(\.state) == [.failed, .succeeded, .succeeded, .succeeded, .succeeded])
            #expect(result.reason == "1 of 5 children did not succeed")
        }
    }

    @Test(arguments: StoreBackend.all) func groupsNestAndNamedResultsReachIntoThem(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let inner = CompositionNode.group(.concurrent, [step("1", name: "x"), step("2", name: "y")], maxConcurrent: 0, name: "pair")
            let id = try await store.enqueue(
                composition: .group(.sequence, [inner, step(name: "sum", takesPrevious: true)], maxConcurrent: 0, name: nil),
                now: 1_000)
            for claimed in try await store.take("q", limit: 10) { try await succeed(store, claimed, output: claimed.input + "0") }
            let last = try await store.take("q", limit: 10)
            #expect(last.map { canonicalJSON($0.input) } == [#"{"x":10,"y":20}"#])
            try await succeed(store, last[0], output: "30")
            let result = try await store.groupResult(id)
            #expect(result.state == .succeeded)
            #expect(try result.group("pair")?.output("y", as: Int.self) == 20)
            #expect(try result.output("pair", as: [String: Int].self) == ["x": 10, "y": 20])
            #expect(try result.output("sum", as: Int.self) == 30)
        }
    }

    @Test(arguments: StoreBackend.all) func cancellingAGroupCancelsEveryUnfinishedPartRunningOnesIncluded(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let inner = CompositionNode.sequence([step(name: "i1"), step(name: "i2")])
            let id = try await store.enqueue(
                composition: .group(.concurrent, [step(name: "a"), inner, step(name: "c")], maxConcurrent: 2, name: nil), now: 1_000)
            let running = try await store.take("q", limit: 10)
            #expect(running.count == 2)  // a and i1; c waits for room
            #expect(try await store.cancel(group: id, now: 2_000))
            #expect(try await store.groupState(id) == .running)  // until the running jobs stop
            for job in running {
                try await store.finish([FinishedAttempt(job.attemptID, owner: "w1", outcome: .cancelled(reason: "stopped"))], now: 3_000)
            }
            let result = try await store.groupResult(id)
            #expect(result.state == .cancelled)
            #expect(result.children.map(\.state) == [.cancelled, .cancelled, .cancelled])
            if case .group(let nested) = result.children[1].content {
                #expect(nested.children.map(\.state) == [.cancelled, .cancelled])
            } else {
                Issue.record("the second child is a group")
            }
            #expect(try await store.take("q", limit: 10).isEmpty)
            #expect(try await store.cancel(group: id, now: 4_000) == false)
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func badCompositionsAreRefusedAndChangeNothing(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let bad: [CompositionNode] = [
                step(),
                .group(.sequence, [step(name: "a"), step(name: "a")], maxConcurrent: 0, name: nil),
                .group(.sequence, [step(takesPrevious: true)], maxConcurrent: 0, name: nil),
                .group(.concurrent, [step(), step(takesPrevious: true)], maxConcurrent: 0, name: nil),
                .group(.concurrent, [step()], maxConcurrent: -1, name: nil),
                .group(.sequence, [.job(job("q", uniqueKey: "k"), name: nil, takesPreviousOutput: false)], maxConcurrent: 0, name: nil),
            ]
            for composition in bad {
                let error = try await #require(throws: DurableQueueError.self) {
                    try await store.enqueue(composition: composition, now: 1)
                }
                #expect(error.code == .invalidArgument)
            }
            #expect(try await store.jobs(JobFilter(limit: 10)).isEmpty)
            let missing = try await #require(throws: DurableQueueError.self) { try await store.groupState(GroupID(99)) }
            #expect(missing.code == .groupNotFound)
        }
    }
}

extension CompositionNode {
    /// A sequence of `steps`, unnamed.
    static func sequence(_ steps: [CompositionNode]) -> CompositionNode {
        .group(.sequence, steps, maxConcurrent: 0, name: nil)
    }
}
