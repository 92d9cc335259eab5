import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Aging: a long-waiting low-priority job runs under a steady stream of high-priority work.
@Suite(.timeLimit(.minutes(2))) struct AgingTests {
    /// Runs a steady stream on `queue` — every 2 s two high jobs arrive and one job runs — with
    /// one low job waiting from the start; the second at which the low job ran, nil if not by 300 s.
    private func secondsUntilTheLowJobRuns(_ store: any JobStore, queue: String) async throws -> Int? {
        let low = try await store.add(job(queue, priority: .low), now: 0)
        for second in stride(from: 0, to: 300, by: 2) {
            let now = Int64(second) * 1_000
            _ = try await store.enqueue(batch: [job(queue, priority: .high), job(queue, priority: .high)], now: now)
            _ = try await store.ageWaitingJobs(now: now)
            let claimed = try await store.take(queue, now: now)
            try await store.finish(claimed.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .succeeded(output: "1")) }, now: now)
            if claimed.map(\.id) == [low] { return second }
        }
        return nil
    }

    @Test(arguments: StoreBackend.all) func aLowJobRunsUnderAStreamOfHighOnesOnlyWithAging(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await store.configure(QueueConfiguration("aged", aging: Aging(every: .seconds(10), upTo: .high)), now: 0)
            try await store.configure(QueueConfiguration("strict"), now: 0)
            let aged = try await secondsUntilTheLowJobRuns(store, queue: "aged")
            let strict = try await secondsUntilTheLowJobRuns(store, queue: "strict")
            // low (-4) to high (4) is 8 rises of 10 s; then it is the oldest job of the top priority.
            // (Each rise counts from the pass that made the one before, and passes come every 2 s.)
            #expect(aged == 80, "with aging the low job ran after \(aged.map { "\($0) s" } ?? "more than 300 s")")
            #expect(strict == nil, "without aging it starves (ran after \(strict.map(String.init) ?? "-") s)")
            let low = try #require(try await store.jobs(JobFilter(queues: ["aged"], order: .oldestFirst)).first)
            let reasons = try await store.history(of: low.id).compactMap(\.reason).filter { $0.hasPrefix("aged:") }
            #expect(reasons.count == 8)
            #expect(reasons.first == "aged: priority -4 → -3 after waiting 10s" && reasons.last == "aged: priority 3 → 4 after waiting 10s")
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func twoProcessesAgeAJobOnceAndAQueueWithoutAgingIsLeftAlone(_ backend: StoreBackend) async throws {
        try await withStore(backend) { first, directory in
            let second = try await backend.make(directory)
            #expect(try await first.ageWaitingJobs(now: 0) == nil, "no queue ages: nothing to do")
            try await first.configure(QueueConfiguration("q", aging: Aging(every: .seconds(5), upTo: .normal)), now: 0)
            let waiting = try await first.add(job("q", priority: .low), now: 0)
            let other = try await first.add(job("plain", priority: .low), now: 0)
            #expect(try await first.ageWaitingJobs(now: 4_999) == 0)
            #expect(try await first.ageWaitingJobs(now: 5_000) == 1)
            #expect(try await second.ageWaitingJobs(now: 5_000) == 0, "the other process finds it already risen")
            #expect(try await first.job(waiting).priority == Priority(rawValue: -3))
            #expect(try await second.ageWaitingJobs(now: 10_000) == 1)
            for now in stride(from: Int64(15_000), through: 60_000, by: 5_000) { _ = try await first.ageWaitingJobs(now: now) }
            #expect(try await first.job(waiting).priority == .normal, "no higher than its queue's limit")
            #expect(try await first.job(other).priority == .low)
            #expect(try await first.queue(named: "q")?.aging == Aging(every: .seconds(5), upTo: .normal))
        }
    }

    @Test(arguments: StoreBackend.all) func theEngineAgesWaitingJobsAsTimePasses(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration) { queue in
            try await queue.queues.configure(QueueConfiguration("reports", aging: Aging(every: .seconds(60), upTo: .normal)))
            // A kind this process does not run: it waits, pending.
            let id = try await queue.store.add(job("reports", kind: "nobody-runs-this", priority: .low), now: time.now().millisecondsSince1970)
            time.advance(by: .seconds(60))
            try await eventually("the job rose once") { try await queue.store.job(id).priority == Priority(rawValue: -3) }
            time.advance(by: .seconds(60))
            try await eventually("the job rose again") { try await queue.store.job(id).priority == Priority(rawValue: -2) }
        }
        #expect(throws: DurableQueueError.self) { try QueueConfiguration("q", aging: Aging(every: .milliseconds(500))).validate() }
    }
}
