import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Throttle intervals and rate limits in the store, with explicit times (milliseconds).
@Suite struct ThrottleTests {
    @Test(arguments: StoreBackend.all) func theFirstJobStartsAtOnceAndTheNextOneIntervalAfterTheStart(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("api", throttle: Throttle(.milliseconds(500))), now: 0)
            for index in 0..<3 { _ = try await store.add(job("api", input: "\(index)"), now: 0) }
            // An idle queue: no delay before the first job, even asked for several at once.
            let first = try await store.take("api", limit: 10, now: 10_000)
            #expect(first.map(\.input) == ["0"])
            // Measured from the start: the first job still running does not delay the second.
            #expect(try await store.take("api", limit: 10, now: 10_499).isEmpty)
            #expect(try await store.take("api", limit: 10, now: 10_500).map(\.input) == ["1"])
            try await store.succeed(first[0].id, now: 10_900)
            #expect(try await store.take("api", limit: 10, now: 10_999).isEmpty)
            #expect(try await store.take("api", limit: 10, now: 11_000).map(\.input) == ["2"])
            #expect(try await store.nextWakeTime(after: 11_000) == 11_500)
        }
    }

    @Test(arguments: StoreBackend.all) func measuredFromTheEndTheGapFollowsEachJobsEnd(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let throttle = Throttle(.milliseconds(500), measuredFrom: .end)
            try await store.configure(QueueConfiguration("api", throttle: throttle), now: 0)
            for index in 0..<3 { _ = try await store.add(job("api", input: "\(index)"), now: 0) }
            let first = try await store.take("api", limit: 10, now: 10_000)
            #expect(first.map(\.input) == ["0"])
            // One at a time: nothing starts while the first job runs, however long it takes.
            #expect(try await store.take("api", limit: 10, now: 20_000).isEmpty)
            try await store.succeed(first[0].id, now: 20_000)
            #expect(try await store.take("api", limit: 10, now: 20_499).isEmpty)
            let second = try await store.take("api", limit: 10, now: 20_500)
            #expect(second.map(\.input) == ["1"])
            // A failed attempt or a job given back ends too.
            _ = try await store.release(second.map(\.attemptID), owner: "w1", now: 21_000, reason: "shutdown")
            #expect(try await store.take("api", limit: 10, now: 21_499).isEmpty)
            #expect(try await store.take("api", limit: 10, now: 21_500).map(\.input) == ["1"])
        }
    }

    @Test(arguments: StoreBackend.all) func aJobsOwnIntervalAppliesAfterItInsteadOfTheQueues(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("api", throttle: Throttle(.milliseconds(500))), now: 0)
            _ = try await store.add(job("api", input: #""slow""#, throttleInterval: 2_000), now: 0)
            _ = try await store.add(job("api", input: #""default""#), now: 0)
            _ = try await store.add(job("api", input: #""last""#), now: 0)
            #expect(try await store.take("api", now: 0).map(\.input) == [#""slow""#])
            #expect(try await store.take("api", now: 1_999).isEmpty)
            #expect(try await store.take("api", now: 2_000).map(\.input) == [#""default""#])
            #expect(try await store.take("api", now: 2_499).isEmpty)
            #expect(try await store.take("api", now: 2_500).map(\.input) == [#""last""#])
        }
    }

    @Test(arguments: StoreBackend.all) func aJobWithItsOwnIntervalOnAnUnthrottledQueueIsTheLastOfItsClaim(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            for (index, interval) in [0, 0, 300, 0].enumerated() {
                _ = try await store.add(job("q", input: "\(index)", throttleInterval: Int64(interval)), now: 0)
            }
            #expect(try await store.take("q", limit: 10, now: 0).map(\.input) == ["0", "1", "2"])
            #expect(try await store.take("q", limit: 10, now: 299).isEmpty)
            #expect(try await store.take("q", limit: 10, now: 300).map(\.input) == ["3"])
        }
    }

    @Test(arguments: StoreBackend.all, Throttle.Mutability.allCases)
    func aChangedIntervalReachesTheWaitingJobsTheMutabilitySays(_ backend: StoreBackend, mutability: Throttle.Mutability) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(
                QueueConfiguration("api", throttle: Throttle(.milliseconds(500), mutability: mutability)), now: 0)
            let own = try await store.add(job("api", throttleInterval: 2_000), now: 0)
            let queueDefault = try await store.add(job("api"), now: 0)
            let later = try await store.add(job("api", runAt: 60_000), now: 0)
            try await store.configure(
                QueueConfiguration("api", throttle: Throttle(.milliseconds(1_000), mutability: mutability)), now: 1)
            let intervals = try await [own, queueDefault, later].asyncMap { try await store.throttleInterval(of: $0) }
            switch mutability {
            case .all: #expect(intervals == [1_000, 1_000, 1_000])
            case .defaultOnly: #expect(intervals == [2_000, 1_000, 1_000])
            case .none: #expect(intervals == [2_000, 500, 500])
            }
            let next = try await store.add(job("api"), now: 2)
            #expect(try await store.throttleInterval(of: next) == 1_000)
        }
    }

    @Test(arguments: StoreBackend.all) func atMostNStartsInAnyWindow(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("api", rateLimit: RateLimit(3, per: .seconds(1))), now: 0)
            for index in 0..<7 { _ = try await store.add(job("api", input: "\(index)"), now: 0) }
            #expect(try await store.take("api", limit: 2, now: 0).map(\.input) == ["0", "1"])
            #expect(try await store.take("api", limit: 10, now: 400).map(\.input) == ["2"])
            #expect(try await store.take("api", limit: 10, now: 999).isEmpty)
            #expect(try await store.nextWakeTime(after: 999) == 1_000)
            // The two starts at 0 leave the window; the one at 400 is still in it.
            #expect(try await store.take("api", limit: 10, now: 1_000).map(\.input) == ["3", "4"])
            #expect(try await store.take("api", limit: 10, now: 1_399).isEmpty)
            #expect(try await store.take("api", limit: 10, now: 1_400).map(\.input) == ["5"])
        }
    }

    @Test(arguments: StoreBackend.all) func theRateLimitCombinesWithTheConcurrencyLimit(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(
                QueueConfiguration("api", concurrencyLimit: 1, rateLimit: RateLimit(2, per: .seconds(10))), now: 0)
            for index in 0..<3 { _ = try await store.add(job("api", input: "\(index)"), now: 0) }
            let first = try await store.take("api", limit: 10, now: 0)
            #expect(first.map(\.input) == ["0"])
            #expect(try await store.take("api", limit: 10, now: 1).isEmpty)  // the concurrency limit
            try await store.succeed(first[0].id, now: 2)
            #expect(try await store.take("api", limit: 10, now: 3).map(\.input) == ["1"])
            try await store.succeed(try #require(try await store.jobs(JobFilter(state: .running)).first).id, now: 4)
            #expect(try await store.take("api", limit: 10, now: 5).isEmpty)  // the rate limit
            #expect(try await store.take("api", limit: 10, now: 10_000).map(\.input) == ["2"])
        }
    }

    @Test(arguments: StoreBackend.all) func theNextAllowedStartSurvivesReopeningTheFile(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await backend.make(directory)
            try await store.configure(QueueConfiguration("api", throttle: Throttle(.milliseconds(500))), now: 0)
            for _ in 0..<2 { _ = try await store.add(job("api"), now: 0) }
            #expect(try await store.take("api", now: 100).count == 1)
        }
        let reopened = try await backend.make(directory)
        #expect(try await reopened.take("api", now: 599).isEmpty)
        #expect(try await reopened.take("api", now: 600).count == 1)
    }

    @Test(arguments: StoreBackend.all) func settingsRoundTripAndBadOnesAreRefused(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let settings = QueueConfiguration(
                "api", concurrencyLimit: 2,
                throttle: Throttle(.milliseconds(250), measuredFrom: .end, mutability: .defaultOnly),
                rateLimit: RateLimit(100, per: .seconds(60)))
            try await store.configure(settings, now: 0)
            #expect(try await store.queue(named: "api") == settings)
            for bad in [
                QueueConfiguration("api", throttle: Throttle(.milliseconds(-1))),
                QueueConfiguration("api", rateLimit: RateLimit(0, per: .seconds(1))),
                QueueConfiguration("api", rateLimit: RateLimit(1, per: .zero)),
            ] {
                let error = try await #require(throws: DurableQueueError.self) { try await store.configure(bad, now: 1) }
                #expect(error.code == .invalidArgument)
            }
            #expect(try await store.queue(named: "api") == settings)
            await #expect(throws: DurableQueueError.self) { try await store.add(job("api", throttleInterval: -5)) }
        }
    }

    @Test(arguments: StoreBackend.all) func removingThrottleAndRateLimitLetsTheNextJobStartAtOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("api", throttle: Throttle(.seconds(60))), now: 0)
            for _ in 0..<2 { _ = try await store.add(job("api"), now: 0) }
            #expect(try await store.take("api", now: 0).count == 1)
            #expect(try await store.take("api", now: 1).isEmpty)
            try await store.configure(QueueConfiguration("api"), now: 2)
            #expect(try await store.take("api", now: 3).count == 1)
        }
    }
}

extension JobStore {
    /// The throttle interval stored in the job's row.
    func throttleInterval(of id: JobID) async throws -> Int64 {
        try await job(id).throttleIntervalMilliseconds
    }
}

extension Array {
    /// `transform` applied to each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
