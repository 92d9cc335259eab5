import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Follows the next page until `input` pages are done, on its own queue; logs each page on "audit".
struct Paginate: Job {
    static let name = "paginate"
    func run(_ remaining: Int, context: JobContext) async throws -> Int {
        _ = try await context.enqueue(Echo.self, "page \(remaining) of \(context.queue)", options: EnqueueOptions(queue: "audit"))
        if remaining > 1 { _ = try await context.enqueue(Paginate.self, remaining - 1) }
        return remaining
    }
}

@Suite(.timeLimit(.minutes(1))) struct ThrottledQueueTests {
    @Test(arguments: StoreBackend.all) func theEngineStartsJobsOfAThrottledQueueExactlyAnIntervalApart(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            try await queue.queues.configure(QueueConfiguration("api", throttle: Throttle(.milliseconds(500))))
            let start = time.now().millisecondsSince1970
            let handles = try await queue.enqueue(Echo.self, batch: ["a", "b", "c"], options: EnqueueOptions(queue: "api"))
            for (index, handle) in handles.enumerated() {
                #expect(try await handle.result() == ["a", "b", "c"][index])
                // The clock stands still until the test moves it, so nothing else can have started.
                for later in handles.dropFirst(index + 1) { #expect(try await later.state() == .pending) }
                time.advance(by: .milliseconds(500))
            }
            #expect(try await startTimes(queue.store, queue: "api") == [start, start + 500, start + 1_000])
        }
    }

    @Test(arguments: StoreBackend.all) func measuredFromTheEndTheEngineKeepsTheJobsOwnGapAfterEachEnd(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            let throttle = Throttle(.milliseconds(300), measuredFrom: .end)
            try await queue.queues.configure(QueueConfiguration("api", throttle: throttle))
            let start = time.now().millisecondsSince1970
            let slow = try await queue.enqueue(Echo.self, "slow", options: EnqueueOptions(queue: "api", throttleInterval: .seconds(2)))
            let next = try await queue.enqueue(Echo.self, "next", options: EnqueueOptions(queue: "api"))
            _ = try await slow.result()
            time.advance(by: .milliseconds(300))  // the queue's interval would allow it; the job's own does not
            #expect(try await next.state() == .pending)
            time.advance(by: .milliseconds(1_700))
            _ = try await next.result()
            #expect(try await startTimes(queue.store, queue: "api") == [start, start + 2_000])
        }
    }

    @Test(arguments: StoreBackend.all) func theEngineWaitsForTheRateLimitsWindow(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            try await queue.queues.configure(QueueConfiguration("api", rateLimit: RateLimit(2, per: .seconds(60))))
            let start = time.now().millisecondsSince1970
            let handles = try await queue.enqueue(Echo.self, batch: ["a", "b", "c", "d"], options: EnqueueOptions(queue: "api"))
            _ = try await handles[1].result()
            #expect(try await handles[2].state() == .pending)
            time.advance(by: .seconds(60))
            _ = try await handles[3].result()
            #expect(try await startTimes(queue.store, queue: "api") == [start, start, start + 60_000, start + 60_000])
        }
    }

    @Test(arguments: StoreBackend.all) func aJobEnqueuesFollowUpsOnItsOwnQueueOrANamedOne(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Paginate()); $0.register(Echo()) }) { queue in
            let first = try await queue.enqueue(Paginate.self, 3, options: EnqueueOptions(queue: "pages"))
            #expect(try await first.result() == 3)
            try await eventually("every follow-up ran") { try await queue.unfinishedJobCount() == 0 }
            let jobs = try await queue.store.jobs(JobFilter(limit: 100))
            #expect(jobs.filter { $0.kind == Paginate.name }.map(\.queue) == ["pages", "pages", "pages"])
            #expect(Set(jobs.filter { $0.kind == Echo.name }.compactMap(\.output)) == [
                "\"page 3 of pages\"", "\"page 2 of pages\"", "\"page 1 of pages\"",
            ])
            #expect(jobs.filter { $0.kind == Echo.name }.allSatisfy { $0.queue == "audit" })
        }
    }

    /// Behaviour on the wall clock: no start comes early, and the engine wakes for the throttle
    /// rather than at its next poll (3 s here, so a missed wake-up shows as gaps of 3 s).
    /// How close the gaps come to the interval is a speed property: the benchmark's `throttle`
    /// workload measures it on a quiet machine; here both cores are shared with the rest of the
    /// suite (on PostgreSQL in CI the median gap has reached 541 ms, single gaps 1.8 and 3.9 s).
    @Test(arguments: StoreBackend.all) func onTheWallClockJobsNeverStartEarlyAndDoNotWaitForThePoll(_ backend: StoreBackend) async throws {
        let configuration = JobQueue.Configuration(pollInterval: .seconds(3))
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            try await queue.queues.configure(QueueConfiguration("paced", throttle: Throttle(.milliseconds(50))))
            let handles = try await queue.enqueue(
                Echo.self, batch: (0..<11).map { "\($0)" }, options: EnqueueOptions(queue: "paced"))
            for handle in handles { _ = try await handle.result() }
            let measured = gaps(try await startTimes(queue.store, queue: "paced"))
            #expect(measured.allSatisfy { $0 >= 50 }, "\(measured)")
            let median = measured.sorted()[measured.count / 2]
            #expect(median < 1_500, "median gap \(median) ms: \(measured)")
        }
    }
}
