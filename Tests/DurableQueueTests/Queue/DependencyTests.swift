import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Multiplies its input by ten.
private struct Produce: Job {
    static let name = "produce"
    func run(_ input: Int, context: JobContext) async throws -> Int { input * 10 }
}

/// Returns the outputs of its dependencies, by name, and the error of dependency "maybe" if any.
private struct Gather: Job {
    static let name = "gather"
    struct Output: Codable, Sendable, Equatable {
        var outputs: [String: Int]
        var maybeFailure: String?
    }
    func run(_ input: String, context: JobContext) async throws -> Output {
        let names = try await context.jobQueue.store.dependencies(of: context.id).map(\.name)
        let failure = names.contains("maybe") ? try await context.dependencyFailure("maybe")?.type : nil
        return Output(outputs: try await context.dependencyOutputs(as: Int.self), maybeFailure: failure)
    }
}

/// Fans out: enqueues `input` Produce children and a Gather that waits for them all, in one step
/// (so a rerun does not enqueue them again); returns the Gather's id.
private struct FanOut: Job {
    static let name = "fan-out"
    func run(_ input: Int, context: JobContext) async throws -> Int64 {
        try await context.step("fan out") {
            var dependencies: [Dependency] = []
            for index in 0..<input {
                let child = try await context.enqueue(Produce.self, index + 1, options: EnqueueOptions(queue: "children"))
                dependencies.append(Dependency("c\(index)", on: child))
            }
            var options = EnqueueOptions(queue: "gather")
            options.dependsOn = dependencies
            return try await context.enqueue(Gather.self, "", options: options).id.rawValue
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct DependencyTests {
    private func failedParent(_ store: any JobStore, now: Int64 = 1_000) async throws -> JobID {
        let id = try await store.add(job("other", kind: "a", maxAttempts: 1), now: now)
        #expect(try await store.claim(queue: "other", limit: 1, owner: "w", leaseDuration: 30_000, now: now).map(\.id) == [id])
        try await store.finish(
            [FinishedAttempt(.first(id), owner: "w", outcome: .failed(JobFailure(type: "Boom", message: "boom", retryable: false)))], now: now + 1)
        return id
    }

    private func dependent(_ dependencies: [Dependency], kind: String = "b") -> NewJob {
        var job = job(kind: kind)
        job.dependencies = dependencies
        return job
    }

    @Test(arguments: StoreBackend.all) func aJobWaitsBlockedForJobsOnOtherQueuesThenReadsTheirOutputsByName(_ backend: StoreBackend) async throws {
        try await withRunningQueue(
            on: backend, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)),
            register: {
                $0.register(Produce())
                $0.register(Gather())
            }
        ) { queue in
            for name in ["a", "b"] {
                try await queue.queues.configure(QueueConfiguration(name))
                try await queue.queues.pause(name)
            }
            let first = try await queue.enqueue(Produce.self, 1, options: EnqueueOptions(queue: "a"))
            let second = try await queue.enqueue(Produce.self, 2, options: EnqueueOptions(queue: "b"))
            var options = EnqueueOptions(queue: "c")
            options.dependsOn = [Dependency("x", on: first), Dependency("y", on: second)]
            let gather = try await queue.enqueue(Gather.self, "", options: options)
            // Created blocked: its history starts where it is, what it waits for is in its edges.
            let created = try await queue.store.history(of: gather.id)
            #expect(created.count == 1 && created[0].from == nil && created[0].to == .blocked)
            #expect(try await queue.store.dependencies(of: gather.id).map(\.job) == [first.id, second.id])
            try await queue.queues.resume("b")
            #expect(try await second.result(timeout: .seconds(10)) == 20)
            try await Task.sleep(for: .milliseconds(100))
            // One of its jobs is done, the other waits on a paused queue: it is still blocked.
            #expect(try await gather.state() == .blocked)
            try await queue.queues.resume("a")
            #expect(try await gather.result(timeout: .seconds(10)) == Gather.Output(outputs: ["x": 10, "y": 20], maybeFailure: nil))
            let started = try #require(try await queue.store.history(of: gather.id).first { $0.from == .blocked })
            #expect(started.to == .pending && started.reason == "its 2 dependencies ended")
        }
    }

    @Test(arguments: StoreBackend.all) func aFailedDependencyCancelsItsDependentsDownstreamUnlessTheirEdgeSaysRunOrIgnore(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let parent = try await store.add(job("other", kind: "a", maxAttempts: 1))
            let cancelled = try await store.add(dependent([Dependency("p", on: parent)]))
            let downstream = try await store.add(dependent([Dependency("up", on: cancelled)]))
            let runs = try await store.add(dependent([Dependency("p", on: parent, onFailure: .run)]))
            let ignores = try await store.add(dependent([Dependency("p", on: parent, onFailure: .ignore)]))
            #expect(try await [cancelled, downstream, runs, ignores].asyncMap { try await store.job($0).state } == [.blocked, .blocked, .blocked, .blocked])
            // Blocked jobs are not claimed.
            #expect(try await store.claim(queue: "default", limit: 10, owner: "w", leaseDuration: 30_000, now: 1_500).isEmpty)

            #expect(try await store.claim(queue: "other", limit: 1, owner: "w", leaseDuration: 30_000, now: 2_000).map(\.id) == [parent])
            let failure = JobFailure(type: "Boom", message: "boom", retryable: false)
            try await store.finish([FinishedAttempt(.first(parent), owner: "w", outcome: .failed(failure))], now: 2_001)

            #expect(try await store.job(cancelled).state == .cancelled)
            #expect(try await store.history(of: cancelled).last?.reason == "dependency 'p' (job \(parent)) failed")
            #expect(try await store.job(downstream).state == .cancelled)
            #expect(try await store.history(of: downstream).last?.reason == "dependency 'up' (job \(cancelled)) cancelled")
            #expect(try await store.job(runs).state == .pending)
            #expect(try await store.job(ignores).state == .pending)
            let edge = try #require(try await store.dependencies(of: runs).first)
            #expect(edge.outcome == .failed && edge.error == failure && edge.job == parent && edge.onFailure == .run)
            #expect(try await store.claim(queue: "default", limit: 10, owner: "w", leaseDuration: 30_000, now: 3_000).count == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func dependenciesThatEndedBeforeTheEnqueueCountAtOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let succeeded = try await store.add(job("other", kind: "a"))
            _ = try await store.claim(queue: "other", limit: 1, owner: "w", leaseDuration: 30_000, now: 1_000)
            try await store.finish([FinishedAttempt(.first(succeeded), owner: "w", outcome: .succeeded(output: "42"))], now: 1_001)
            let failed = try await failedParent(store, now: 1_100)

            let ready = try await store.add(dependent([Dependency("s", on: succeeded)]), now: 2_000)
            #expect(try await store.job(ready).state == .pending)
            #expect(try await store.dependencies(of: ready).map(\.output) == ["42"])
            let cancelled = try await store.add(dependent([Dependency("s", on: succeeded), Dependency("f", on: failed)]), now: 2_000)
            #expect(try await store.job(cancelled).state == .cancelled)
            #expect(try await store.history(of: cancelled).last?.reason == "dependency 'f' (job \(failed)) failed")
            var later = dependent([Dependency("s", on: succeeded)])
            later.runAt = 9_000
            #expect(try await store.job(try await store.add(later, now: 2_000)).state == .scheduled)

            let before = try await store.count(JobFilter())
            await #expect(throws: DurableQueueError.self) { _ = try await store.add(dependent([Dependency("gone", on: JobID(4242))])) }
            await #expect(throws: DurableQueueError.self) {
                _ = try await store.add(dependent([Dependency("same", on: succeeded), Dependency("same", on: failed)]))
            }
            #expect(try await store.count(JobFilter()) == before, "a refused enqueue inserts nothing")
            #expect(try await store.history(of: ready).allSatisfy { $0.to != .blocked })
        }
    }

    @Test(arguments: StoreBackend.all) func aGraphsFailedJobsAreRetriedAloneOrWithWhatTheirFailureCancelledDownstream(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let succeeded = try await store.add(job("other", kind: "a"))
            _ = try await store.claim(queue: "other", limit: 1, owner: "w", leaseDuration: 30_000, now: 1_000)
            try await store.finish([FinishedAttempt(.first(succeeded), owner: "w", outcome: .succeeded(output: "1"))], now: 1_001)
            let failing = try await store.add(job("other", kind: "a", maxAttempts: 1), now: 1_100)
            let b = try await store.add(dependent([Dependency("a", on: failing)]))
            let c = try await store.add(dependent([Dependency("b", on: b)]))
            let runs = try await store.add(dependent([Dependency("a", on: failing, onFailure: .run)]))
            let d = try await store.add(dependent([Dependency("s", on: succeeded), Dependency("a", on: failing)]))
            func fail(at now: Int64) async throws {
                let attempt = try #require(try await store.claim(queue: "other", limit: 1, owner: "w", leaseDuration: 30_000, now: now).first)
                let failure = JobFailure(type: "Boom", message: "boom", retryable: false)
                try await store.finish([FinishedAttempt(AttemptID(job: failing, number: attempt.attempt), owner: "w", outcome: .failed(failure))], now: now + 1)
            }
            try await fail(at: 2_000)
            #expect(try await [b, c, d, runs].asyncMap { try await store.job($0).state } == [.cancelled, .cancelled, .cancelled, .pending])

            // The failed job alone, from anywhere in its graph.
            #expect(try await store.retryFailed(inGraphOf: c, downstream: false, now: 3_000) == [failing: .pending])
            #expect(try await [b, c, d].asyncMap { try await store.job($0).state } == [.cancelled, .cancelled, .cancelled])
            #expect(try await store.history(of: failing).last?.reason == "retry requested after 1 attempt(s); retry of the failed jobs of the graph of job \(c)")
            try await fail(at: 4_000)

            // With what its failure cancelled downstream: those wait again; the job that ran anyway is left.
            let changed = try await store.retryFailed(inGraphOf: c, downstream: true, now: 5_000)
            #expect(changed == [failing: .pending, b: .blocked, c: .blocked, d: .blocked], "\(changed)")
            #expect(try await store.job(runs).state == .pending)
            #expect(try await store.dependencies(of: d).map { $0.outcome } == [nil, .succeeded])
            #expect(try await store.history(of: b).last?.reason == "retry of the failed jobs of the graph of job \(c)")
            let attempt = try #require(try await store.claim(queue: "other", limit: 1, owner: "w", leaseDuration: 30_000, now: 6_000).first)
            try await store.finish([FinishedAttempt(AttemptID(job: failing, number: attempt.attempt), owner: "w", outcome: .succeeded(output: "2"))], now: 6_001)
            #expect(try await [b, c, d].asyncMap { try await store.job($0).state } == [.pending, .blocked, .pending])
            _ = try await store.claim(queue: "default", limit: 1, owner: "w", leaseDuration: 30_000, now: 7_000, excluding: [runs, d])
            try await store.finish([FinishedAttempt(.first(b), owner: "w", outcome: .succeeded(output: "3"))], now: 7_001)
            #expect(try await store.job(c).state == .pending)
            await #expect(throws: DurableQueueError.self) { _ = try await store.retryFailed(inGraphOf: JobID(4242), downstream: true, now: 8_000) }
        }
    }

    @Test(arguments: StoreBackend.all) func aHandlerFansOutChildrenAndAContinuationReceivesTheirOutputs(_ backend: StoreBackend) async throws {
        try await withRunningQueue(
            on: backend, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)),
            register: {
                $0.register(Produce())
                $0.register(Gather())
                $0.register(FanOut())
            }
        ) { queue in
            let fan = try await queue.enqueue(FanOut.self, 5)
            let gather = queue.handle(Gather.self, id: JobID(try await fan.result(timeout: .seconds(10))))
            let output = try await gather.result(timeout: .seconds(10))
            #expect(output.outputs == ["c0": 10, "c1": 20, "c2": 30, "c3": 40, "c4": 50])
            #expect(try await queue.store.dependencies(of: gather.id).count == 5)
        }
    }
}

