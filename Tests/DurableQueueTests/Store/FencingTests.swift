import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Every write an attempt makes is fenced by (job, attempt number) and owner: once the job has been
/// recovered and claimed again, even by the same worker, the old attempt can change nothing.
@Suite struct FencingTests {
    /// Claims the job as attempt 1 for "w1" with a 1 s lease, lets the lease expire and be recovered,
    /// and claims it again for "w1" as attempt 2: the situation of a worker frozen past its lease.
    private func reclaimedBySameWorker(_ store: any JobStore) async throws -> (stale: ClaimedJob, current: ClaimedJob) {
        _ = try await store.add(job(maxAttempts: nil))
        let stale = try await store.claim(queue: "default", limit: 1, owner: "w1", leaseDuration: 1_000, now: 1_000)[0]
        #expect(try await store.recoverExpiredLeases(now: 2_500).count == 1)
        let current = try await store.claim(queue: "default", limit: 1, owner: "w1", leaseDuration: 1_000, now: 3_000)[0]
        #expect(stale.attempt == 1 && current.attempt == 2)
        return (stale, current)
    }

    @Test(arguments: StoreBackend.all) func aLateEndingOfAnOlderAttemptIsDiscardedAndNotedEvenUnderTheSameOwner(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let (stale, current) = try await reclaimedBySameWorker(store)
            let states = try await store.finish([FinishedAttempt(stale.attemptID, owner: "w1", outcome: .succeeded(output: "\"stale\""))], now: 3_100)
            #expect(states.isEmpty)
            var record = try await store.job(stale.id)
            #expect(record.state == .running && record.attempts == 2 && record.output == nil)
            let note = try #require(try await store.history(of: stale.id).last)
            #expect(note.from == .running && note.to == .running && note.attempt == 1 && note.worker == "w1")
            #expect(note.reason == "attempt 1 returned a result after its worker lost the job; discarded")

            try await store.finish([FinishedAttempt(current.attemptID, owner: "w1", outcome: .succeeded(output: "\"current\""))], now: 3_200)
            record = try await store.job(stale.id)
            #expect(record.state == .succeeded && record.output == "\"current\"")
            #expect(try await store.history(of: stale.id).last?.attempt == 2)
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func anEndingAfterTheJobFinishedElsewhereIsNotedWithoutChangingIt(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let (stale, current) = try await reclaimedBySameWorker(store)
            try await store.finish([FinishedAttempt(current.attemptID, owner: "w1", outcome: .succeeded(output: "2"))], now: 3_100)
            let failure = JobFailure(type: "E", message: "late", retryable: true)
            #expect(try await store.finish([FinishedAttempt(stale.attemptID, owner: "w1", outcome: .retry(failure, after: 0))], now: 3_200).isEmpty)
            let record = try await store.job(stale.id)
            #expect(record.state == .succeeded && record.output == "2" && record.error?.message != "late")
            let note = try #require(try await store.history(of: stale.id).last)
            #expect(note.from == .succeeded && note.to == .succeeded && note.attempt == 1)
            #expect(note.reason == "attempt 1 failed after its worker lost the job; discarded")
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func progressHeartbeatsAndReleasesOfAnOlderAttemptChangeNothing(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let (stale, current) = try await reclaimedBySameWorker(store)
            #expect(try await !store.saveProgress(stale.attemptID, owner: "w1", progress: 0.9, checkpoint: [9], now: 3_100))
            #expect(try await store.saveProgress(current.attemptID, owner: "w1", progress: 0.1, checkpoint: [1], now: 3_100))
            let held = try await store.renewLeases([stale.attemptID, current.attemptID], owner: "w1", expiresAt: 9_000)
            #expect(held == [HeldLease(attempt: current.attemptID, cancelRequested: false)])
            #expect(try await store.release([stale.attemptID], owner: "w1", now: 3_200, reason: "shutdown").isEmpty)
            let record = try await store.job(stale.id)
            #expect(record.state == .running && record.attempts == 2 && record.leaseExpiresAt == 9_000)
            #expect(record.progress == 0.1 && record.checkpoint == [1])
            #expect(try await store.release([current.attemptID], owner: "w1", now: 3_300, reason: "shutdown") == [current.attemptID])
            #expect(try await store.job(stale.id).state == .pending)
        }
    }

    @Test(arguments: StoreBackend.all) func aClaimSkipsJobsStillRunningInTheClaimingProcess(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let first = try await store.add(job())
            let second = try await store.add(job())
            let claimed = try await store.claim(
                queue: "default", limit: 2, owner: "w1", leaseDuration: 1_000, now: 1_000, excluding: [first])
            #expect(claimed.map(\.id) == [second])
            #expect(try await store.job(first).state == .pending)
        }
    }
}
