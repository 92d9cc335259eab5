import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct UniqueKeyTests {
    @Test(arguments: StoreBackend.all) func keepReturnsTheActiveJob(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let first = try await store.enqueue(job(uniqueKey: "k"), now: 1)
            let second = try await store.enqueue(job(uniqueKey: "k", policy: .keep), now: 2)
            #expect(second == .existing(first.id))
            #expect(try await store.jobs(JobFilter()).count == 1)
        }
    }

    @Test(arguments: StoreBackend.all) func aFinishedJobNoLongerHoldsItsKey(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let first = try await store.add(job(uniqueKey: "k"))
            _ = try await store.take()
            try await store.finish([FinishedAttempt(.first(first), owner: "w1", outcome: .succeeded(output: "1"))], now: 2)
            let second = try await store.enqueue(job(uniqueKey: "k"), now: 3)
            #expect(second == .inserted(JobID(first.rawValue + 1)))
        }
    }

    @Test(arguments: StoreBackend.all) func replaceCancelsAWaitingDuplicate(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let old = try await store.add(job(uniqueKey: "k"))
            let outcome = try await store.enqueue(job(uniqueKey: "k", policy: .replace), now: 2)
            #expect(outcome == .replaced(JobID(old.rawValue + 1), replacing: old))
            #expect(try await store.job(old).state == .cancelled)
            #expect(try await store.history(of: old).last?.reason == "replaced by a job with the same unique key")
            #expect(try await store.job(outcome.id).state == .pending)
        }
    }

    @Test(arguments: StoreBackend.all) func replaceFlagsARunningDuplicateAndStillEnqueues(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let old = try await store.add(job(uniqueKey: "k"))
            _ = try await store.take()
            let outcome = try await store.enqueue(job(uniqueKey: "k", policy: .replace), now: 2)
            #expect(try await store.job(old).cancelRequested)
            #expect(try await store.job(outcome.id).state == .pending)
            #expect(try await store.renewLeases([.first(old)], owner: "w1", expiresAt: 50_000).first?.cancelRequested == true)
        }
    }

    @Test(arguments: StoreBackend.all) func allowEnqueuesADuplicate(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            _ = try await store.add(job(uniqueKey: "k"))
            let second = try await store.enqueue(job(uniqueKey: "k", policy: .allow), now: 2)
            guard case .inserted = second else { Issue.record("expected a new job, got \(second)"); return }
            #expect(try await store.job(second.id).uniqueKey == nil)
            #expect(try await store.jobs(JobFilter()).count == 2)
        }
    }

    @Test(arguments: StoreBackend.all, [UniquePolicy.keep, .replace])
    func twoConnectionsRacingLeaveExactlyOneActiveJob(_ backend: StoreBackend, policy: UniquePolicy) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = [try await backend.make(directory), try await backend.make(directory)]
        let rounds = 50
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask {
                    for round in 0..<rounds {
                        _ = try await store.enqueue(job(uniqueKey: "key-\(round)", policy: policy), now: Int64(round))
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try await stores[0].jobs(JobFilter(limit: 1_000))
        let active = all.filter { !$0.state.isTerminal && !$0.cancelRequested }
        #expect(Set(active.compactMap(\.uniqueKey)).count == rounds)
        #expect(active.count == rounds)
        if policy == .keep { #expect(all.count == rounds) }
        #expect(try await stores[1].historyIsConsistent())
    }
}
