import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct LeaseTests {
    @Test(arguments: StoreBackend.all) func aHeartbeatExtendsOnlyTheOwnersLeases(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let mine = try await store.add(job())
            let theirs = try await store.add(job())
            _ = try await store.take(owner: "me")
            _ = try await store.take(owner: "them")
            let renewed = try await store.renewLeases([.first(mine), .first(theirs)], owner: "me", expiresAt: 90_000)
            #expect(renewed == [HeldLease(attempt: .first(mine), cancelRequested: false)])
            #expect(try await store.job(mine).leaseExpiresAt == 90_000)
            #expect(try await store.job(theirs).leaseExpiresAt == 31_000)
        }
    }

    @Test(arguments: StoreBackend.all) func anExpiredLeaseReturnsTheJobToPendingCountingTheAttempt(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 3))
            _ = try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: 1_000)
            #expect(try await store.recoverExpiredLeases(now: 1_999).isEmpty)
            let recovered = try await store.recoverExpiredLeases(now: 2_001)
            #expect(recovered == [RecoveredJob(id: id, previousOwner: "dead", state: .pending, queue: "default", kind: "test")])
            let record = try await store.job(id)
            #expect(record.state == .pending && record.attempts == 1 && record.leaseOwner == nil)
            #expect(record.error?.type == "LeaseExpired")
            let event = try #require(try await store.history(of: id).last)
            #expect(event.from == .running && event.to == .pending && event.attempt == 1 && event.worker == "dead")
            #expect(event.reason?.contains("lease expired") == true)
            // The report of the dead worker, should it come back, is ignored.
            #expect(try await store.finish([FinishedAttempt(.first(id), owner: "dead", outcome: .succeeded(output: "1"))], now: 2_002).isEmpty)
            #expect(try await store.take(now: 2_003).first?.attempt == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func anExpiredLeaseWithACancelFlagEndsCancelled(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: 1_000)
            _ = try await store.cancel(id, now: 1_500)
            #expect(try await store.recoverExpiredLeases(now: 5_000).map(\.state) == [.cancelled])
            #expect(try await store.job(id).state == .cancelled)
            #expect(try await store.take(now: 6_000).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.all) func anExpiredLeaseOnTheLastAttemptFails(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 1))
            _ = try await store.claim(queue: "default", limit: 1, owner: "dead", leaseDuration: 1_000, now: 1_000)
            #expect(try await store.recoverExpiredLeases(now: 5_000).map(\.state) == [.failed])
            #expect(try await store.job(id).finishedAt == 5_000)
        }
    }

    @Test(arguments: StoreBackend.all) func aFinishedJobIsNeverRecovered(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.claim(queue: "default", limit: 1, owner: "w", leaseDuration: 1_000, now: 1_000)
            try await store.finish([FinishedAttempt(.first(id), owner: "w", outcome: .succeeded(output: "1"))], now: 1_500)
            #expect(try await store.recoverExpiredLeases(now: 9_000).isEmpty)
            #expect(try await store.job(id).state == .succeeded)
        }
    }

    @Test(arguments: StoreBackend.all) func releasingGivesTheJobBackWithoutCountingTheAttempt(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let kept = try await store.add(job())
            let flagged = try await store.add(job())
            _ = try await store.take(limit: 2, owner: "w")
            _ = try await store.cancel(flagged, now: 1_500)
            let released = try await store.release(
                [.first(kept), .first(flagged), .first(JobID(99))], owner: "w", now: 2_000, reason: "shutting down")
            #expect(released == [.first(kept), .first(flagged)])
            #expect(try await store.job(kept).state == .pending)
            #expect(try await store.job(kept).attempts == 0)
            #expect(try await store.job(flagged).state == .cancelled)
            #expect(try await store.history(of: kept).last?.reason == "shutting down")
            #expect(try await store.historyIsConsistent())
        }
    }
}
