import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.timeLimit(.minutes(1))) struct ResultCacheTests {
    @Test(arguments: StoreBackend.all) func aKeyIsComputedOnceThenServedFromTheFile(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Append(tracker: tracker)) }) { queue async throws in
            let cache = queue.cache(for: Append.self)
            #expect(try await cache.state(forKey: "k") == .absent)
            #expect(try await cache.value(forKey: "k", computedBy: "v") == "v+")
            #expect(try await cache.value(forKey: "k", computedBy: "other input") == "v+")
            #expect(tracker.startedInputs == ["v"])
            #expect(try await cache.state(forKey: "k") == .complete("v+"))
        }
    }

    @Test(arguments: StoreBackend.all) func callersAskingWhileItIsComputedJoinTheSameJob(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Append(tracker: tracker)) }) { queue async throws in
            let cache = queue.cache(for: Append.self)
            let values = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await cache.value(forKey: "shared", computedBy: "s") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(values == Array(repeating: "s+", count: 8))
            let jobs = try await queue.store.jobs(JobFilter(limit: 100))
            var histories: [String] = []
            for job in jobs { histories.append("\(job.id): " + (try await queue.store.history(of: job.id)).map { "\($0.to.rawValue)@\($0.at) \($0.reason ?? "")" }.joined(separator: ", ")) }
            #expect(tracker.startedInputs == ["s"], "\(histories)")
            #expect(jobs.count == 1)
        }
    }

    @Test(arguments: StoreBackend.all) func aFailingKeyIsRetriedUpToItsLimitThenStaysFailedUntilReset(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Flaky(retries: false)) }) { queue async throws in
            let cache = queue.cache(for: Flaky.self, maxFailures: 2)
            for failures in 1...2 {
                await #expect(throws: DurableQueueError.self) { try await cache.value(forKey: "bad", computedBy: 100) }
                guard case .failed(let error, let count) = try await cache.state(forKey: "bad") else {
                    Issue.record("the key is failed")
                    return
                }
                #expect(count == failures && error?.message == "test failure")
            }
            let jobs = try await queue.store.jobs(JobFilter(limit: 100)).count
            let error = await #expect(throws: DurableQueueError.self) { try await cache.value(forKey: "bad", computedBy: 100) }
            #expect(error?.message.contains("failed 2 time(s)") == true)
            #expect(try await queue.store.jobs(JobFilter(limit: 100)).count == jobs)  // no third job

            try await cache.reset("bad")
            #expect(try await cache.state(forKey: "bad") == .absent)
            #expect(try await cache.value(forKey: "bad", computedBy: 0) == 1)
            try await queue.cache(for: Flaky.self).resetAll()
            #expect(try await cache.state(forKey: "bad") == .absent)
        }
    }

    @Test(arguments: StoreBackend.all) func observersSeeEveryStateAndALateOneStartsWithTheCurrent(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Append(tracker: tracker)) }) { queue async throws in
            let cache = queue.cache(for: Append.self, namespace: "observed")
            let early = Task { @MainActor in
                var seen: [CachedState<String>] = []
                for try await state in cache.states(forKey: "k") {
                    seen.append(state)
                    if case .complete = state { break }
                }
                return seen
            }
            try await eventually("the observer has the first state") { try await cache.state(forKey: "k") == .absent }
            try await Task.sleep(for: .milliseconds(50))
            _ = try await cache.value(forKey: "k", computedBy: "v")
            let seen = try await early.value
            #expect(seen.first == .absent && seen.last == .complete("v+"))
            var late = cache.states(forKey: "k").makeAsyncIterator()
            #expect(try await late.next() == .complete("v+"))
        }
    }
}
