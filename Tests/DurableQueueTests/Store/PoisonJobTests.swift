import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Poison jobs on both stores: a job whose worker stops during attempts in a row that make no
/// progress fails, whatever retries it has left (``LostAttempts``).
@Suite struct PoisonJobTests {
    /// Claims the job for worker "dead" at `now` and lets its lease expire: what recovery made of it.
    private func lose(_ store: any JobStore, at now: Int64, limit: Int? = 3) async throws -> [RecoveredJob] {
        #expect(try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: now).count == 1)
        return try await store.recoverExpiredLeases(now: now + 2_000, lostAttemptLimit: limit)
    }

    @Test(arguments: StoreBackend.all) func aJobWhoseWorkerStopsThreeTimesInARowFailsEvenWithUnlimitedRetries(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(kind: "send", maxAttempts: nil))
            let bystander = try await store.add(job(runAt: 1_000_000, maxAttempts: nil))
            #expect(try await lose(store, at: 1_000).map(\.state) == [.pending])
            #expect(try await lose(store, at: 4_000).map(\.state) == [.pending])
            let third = try await lose(store, at: 7_000)
            #expect(third == [RecoveredJob(id: id, previousOwner: "dead", state: .failed, queue: "default", kind: "send", isPoison: true)])
            let record = try await store.job(id)
            #expect(record.state == .failed && record.finishedAt == 9_000 && record.attempts == 3)
            #expect(record.error?.type == LostAttempts.poisonFailureType && record.error?.retryable == false)
            let last = try #require(try await store.history(of: id).last)
            #expect(last.from == .running && last.to == .failed && last.attempt == 3 && last.worker == "dead")
            #expect(last.reason?.contains("3 attempts in a row") == true && last.reason?.contains("poison job") == true)
            #expect(try await store.jobs(.poisoned()).map(\.id) == [id])
            #expect(try await store.jobs(JobFilter(failureType: "LeaseExpired")).isEmpty)
            #expect(try await store.job(bystander).state == .scheduled)

            // Retried by hand, it starts a fresh count: one more lost attempt does not end it.
            try await store.retry(id, now: 10_000)
            #expect(try await lose(store, at: 10_000).map(\.state) == [.pending])
            #expect(try await store.jobs(.poisoned()).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.all) func onlyAttemptsLostInARowWithoutProgressCount(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: nil))
            #expect(try await lose(store, at: 1_000).map(\.state) == [.pending])
            #expect(try await lose(store, at: 4_000).map(\.state) == [.pending])
            // Attempt 3 fails and is retried: the count starts again.
            _ = try await store.claim(queue: "default", limit: 1, owner: "w", leaseDuration: 1_000, now: 7_000)
            let failure = JobFailure(type: "Boom", message: "boom", retryable: true)
            try await store.finish([FinishedAttempt(AttemptID(job: id, number: 3), owner: "w", outcome: .retry(failure, after: 400))], now: 7_100)
            #expect(try await lose(store, at: 8_000).map(\.state) == [.pending])
            #expect(try await lose(store, at: 11_000).map(\.state) == [.pending])
            // Attempt 6 saves a checkpoint before its worker stops: progress, not counted.
            _ = try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: 14_000)
            _ = try await store.saveProgress(AttemptID(job: id, number: 6), owner: "dead", progress: 0.5, checkpoint: [1, 2], now: 14_100)
            #expect(try await store.recoverExpiredLeases(now: 16_000, lostAttemptLimit: 3).map(\.state) == [.pending])
            // Attempt 7 commits a durable step before its worker stops: progress too.
            _ = try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: 17_000)
            let step = StepRecord(job: id, name: "s1", attempt: 7, output: "1", recordedAt: 17_100)
            #expect(try await store.recordStep(step, attempt: AttemptID(job: id, number: 7), owner: "dead"))
            #expect(try await store.recoverExpiredLeases(now: 19_000, lostAttemptLimit: 3).map(\.state) == [.pending])
            // A shutdown gives attempt 8 back uncounted; attempts 8, 9 and 10 are then lost in a row.
            _ = try await store.claim(queue: "default", limit: 1, owner: "w", leaseDuration: 1_000, now: 20_000)
            #expect(try await store.release([AttemptID(job: id, number: 8)], owner: "w", now: 20_100, reason: "shutting down").count == 1)
            #expect(try await lose(store, at: 21_000).map(\.state) == [.pending])
            #expect(try await lose(store, at: 24_000).map(\.state) == [.pending])
            #expect(try await lose(store, at: 27_000).map(\.isPoison) == [true])
            #expect(try await store.job(id).attempts == 10)
        }
    }

    @Test(arguments: StoreBackend.all) func withoutALimitNoJobIsPoisonAndACancelStillWins(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: nil))
            for round in 0..<5 {
                #expect(try await lose(store, at: Int64(1_000 + 3_000 * round), limit: nil).map(\.state) == [.pending])
            }
            #expect(try await lose(store, at: 16_000, limit: 6).map(\.isPoison) == [true])

            let cancelled = try await store.add(job(maxAttempts: nil), now: 20_000)
            #expect(try await lose(store, at: 20_000).map(\.state) == [.pending])
            #expect(try await lose(store, at: 23_000).map(\.state) == [.pending])
            _ = try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: 26_000)
            _ = try await store.cancel(cancelled, now: 26_100)
            #expect(try await store.recoverExpiredLeases(now: 28_000, lostAttemptLimit: 3).map(\.state) == [.cancelled])
            #expect(try await store.jobs(.poisoned()).map(\.id) == [id])
        }
    }
}
