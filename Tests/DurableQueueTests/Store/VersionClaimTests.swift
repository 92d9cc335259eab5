import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A claim takes only the versions its worker runs (``RunnableKinds``), on every path a claim takes:
/// a plain queue, a queue limited per key, and the claim made with endings; on both stores.
@Suite struct VersionClaimTests {
    /// Jobs of kind "greet" at versions 1, 2 and 3 (inputs "v1" …), in that order, and one "other".
    private func enqueueVersions(_ store: any JobStore, queue: String = "default") async throws -> [Int: JobID] {
        var ids: [Int: JobID] = [:]
        for version in 1...3 {
            var new = job(queue, kind: "greet", input: "\"v\(version)\"")
            new.version = version
            ids[version] = try await store.add(new)
        }
        _ = try await store.add(job(queue, kind: "other"))
        return ids
    }

    @Test(arguments: StoreBackend.all) func aClaimTakesOnlyTheVersionsItsWorkerRunsAndSaysWhichItTook(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let ids = try await enqueueVersions(store)
            let oldest = try await store.claim(queue: "default", limit: 10, owner: "w1", leaseDuration: 1_000, now: 2, kinds: ["greet"])
            #expect(oldest.map(\.id) == [ids[1]] && oldest.map(\.version) == [1], "a version 1 worker leaves 2 and 3")
            let newer = try await store.claim(
                queue: "default", limit: 10, owner: "w2", leaseDuration: 1_000, now: 3, kinds: RunnableKinds(versions: ["greet": 2...3]))
            #expect(newer.map(\.id) == [ids[2], ids[3]] && newer.map(\.version) == [2, 3])
            #expect(try await store.job(try #require(ids[3])).version == 3)
        }
    }

    /// Jobs with a unique key are inserted one by one (the key looked up first), a batch's in rows of
    /// many: each path stores the version, and leaves version 1 to the column's default.
    @Test(arguments: StoreBackend.all) func everyInsertPathStoresTheVersion(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            var keyed = job(kind: "greet", uniqueKey: "k")
            keyed.version = 4
            var batch = (0..<3).map { job(kind: "greet", input: "\($0)") }
            batch[1].version = 2
            let ids = try await store.enqueue([keyed] + batch, now: 1_000).map(\.id)
            var versions: [Int] = []
            for id in ids { versions.append(try await store.job(id).version) }
            #expect(versions == [4, 1, 2, 1])
        }
    }

    @Test(arguments: StoreBackend.all) func aQueueLimitedPerKeyTakesOnlyTheVersionsItsWorkerRuns(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            var limited = QueueConfiguration("keyed")
            limited[keys: "*"] = KeyLimits(concurrencyLimit: 5)
            try await store.configure(limited, now: 0)
            var ids: [Int: JobID] = [:]
            for version in 1...3 {
                var new = NewJob(queue: "keyed", kind: "greet", input: "\"v\(version)\"", partitionKey: "k\(version)")
                new.version = version
                ids[version] = try await store.add(new)
            }
            let claimed = try await store.claim(
                queue: "keyed", limit: 10, owner: "w1", leaseDuration: 1_000, now: 2, kinds: RunnableKinds(versions: ["greet": 2...2]))
            #expect(claimed.map(\.id) == [ids[2]] && claimed.map(\.version) == [2])
        }
    }

    @Test(arguments: StoreBackend.all) func theClaimMadeWithEndingsTakesOnlyTheVersionsItsWorkerRuns(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let first = try await store.add(job())
            let running = try #require(try await store.take(owner: "w1", now: 1_000).first)
            #expect(running.id == first)
            let ids = try await enqueueVersions(store)
            let request = ClaimRequest(
                owner: "w1", leaseDuration: 30_000, now: 1_001, room: 10, kinds: RunnableKinds(versions: ["greet": 3...3]),
                queues: ["default"])
            let result = try await store.finish(
                [FinishedAttempt(running.attemptID, owner: "w1", outcome: .succeeded(output: "1"))], now: 1_001, thenClaim: request)
            #expect(result.claimed.map(\.id) == [ids[3]] && result.claimed.map(\.version) == [3], "\(result)")
        }
    }
}
