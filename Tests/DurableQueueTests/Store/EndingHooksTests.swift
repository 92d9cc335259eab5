import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What an ending changes beyond its job (a waiting dependent, a cache entry) happens however
/// many endings before it had nothing of the kind: a store may remember that a file has no cache
/// entry and no waiting dependency to spare endings a read, but never past its own writes of one.
@Suite struct EndingHooksTests {
    /// Runs one plain job to its end: an ending that finds nothing waiting for it.
    private func endAPlainJob(_ store: any JobStore, now: Int64) async throws {
        let id = try await store.add(job(), now: now)
        #expect(try await store.take(now: now + 1).map(\.id) == [id])
        try await store.succeed(id, now: now + 2)
    }

    @Test(arguments: StoreBackend.all) func aDependencyAddedAfterEndingsWithNothingWaitingIsResolved(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await endAPlainJob(store, now: 10)
            try await endAPlainJob(store, now: 20)
            let parent = try await store.add(job(), now: 30)
            var dependent = job()
            dependent.dependencies = [Dependency("parent", on: parent)]
            let child = try await store.add(dependent, now: 31)
            #expect(try await store.job(child).state == .blocked)
            #expect(try await store.take(now: 40).map(\.id) == [parent])
            try await store.succeed(parent, now: 41)
            #expect(try await store.job(child).state == .pending, "the dependency's ending unblocked its dependent")
            #expect(try await store.dependencies(of: child).map(\.outcome) == [.succeeded])
        }
    }

    @Test(arguments: StoreBackend.all) func aCacheEntryAddedAfterEndingsWithNothingWaitingRecordsItsJobsOutput(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            try await endAPlainJob(store, now: 10)
            try await endAPlainJob(store, now: 20)
            let lookup = try await store.cachedValue(namespace: "n", key: "k", job: job(), maxFailures: nil, now: 30)
            guard case .computing(let computing, enqueued: true) = lookup else {
                Issue.record("expected a job enqueued to compute the key, got \(lookup)")
                return
            }
            #expect(try await store.take(now: 40).map(\.id) == [computing])
            try await store.succeed(computing, now: 41)
            let entry = try await store.cacheEntry(namespace: "n", key: "k")
            #expect(entry?.state == .complete && entry?.output == "null", "\(String(describing: entry))")
        }
    }
}
