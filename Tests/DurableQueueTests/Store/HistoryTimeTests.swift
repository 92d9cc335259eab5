import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A write's rows carry the time its transaction read once it held its locks, not the time its
/// caller asked: a change that waited for another transaction is never stamped before it.
@Suite(.timeLimit(.minutes(2))) struct HistoryTimeTests {
    /// Runs `write` (given the time its caller reads now) while another connection holds `lock`,
    /// and releases the lock once the clock has moved on; returns the time read just before the
    /// release and `write`'s value.
    ///
    /// Whatever the write stamps after taking the lock is at or after that time. A write stamped
    /// with its caller's time (read before the wait) is at least 20 ms earlier, since the lock is
    /// held until the clock has passed it by that much.
    private func whileLocked<T: Sendable>(
        _ lock: @Sendable () async throws -> @Sendable () async throws -> Void, _ write: @escaping @Sendable (Int64) async throws -> T
    ) async throws -> (released: Int64, value: T) {
        let release = try await lock()
        let asked = Date().millisecondsSince1970
        let task = Task { try await write(asked) }
        while Date().millisecondsSince1970 < asked + 20 { await sleepIgnoringCancellation(milliseconds: 5) }
        let released = Date().millisecondsSince1970
        try await release()
        return (released, try await task.value)
    }

    /// A new store of `backend` that reads the wall clock under its locks, holding one job that
    /// worker "w1" runs (claimed at the time read now): the store and the job.
    private func storeWithARunningJob(_ backend: StoreBackend, in directory: TemporaryDirectory) async throws -> (any JobStore, JobID) {
        let store = try await backend.make(directory)
        store.stampTimes(with: SystemTimeSource())
        let now = Date().millisecondsSince1970
        let id = try await store.add(job(), now: now)
        #expect(try await store.take(now: now).map(\.id) == [id])
        return (store, id)
    }

    @Test(arguments: StoreBackend.all) func anEndingThatWaitedForTheJobsLockIsStampedAfterIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, id) = try await storeWithARunningJob(backend, in: directory)
        let (released, _) = try await whileLocked({ try await WriteLock.hold(on: backend, in: directory) }) { asked in
            try await store.succeed(id, now: asked)
        }
        let ended = try #require(try await store.history(of: id).last)
        #expect(ended.to == .succeeded)
        #expect(ended.at >= released, "the success is stamped \(released - ended.at) ms before the lock it waited for was released")
        #expect(try await store.job(id).finishedAt == ended.at)
    }

    @Test(arguments: StoreBackend.all) func aClaimThatWaitedForItsQueuesLockIsStampedAfterIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await backend.make(directory)
        store.stampTimes(with: SystemTimeSource())
        let now = Date().millisecondsSince1970
        try await store.configure(QueueConfiguration("limited", concurrencyLimit: 1), now: now)
        let id = try await store.add(job("limited"), now: now)
        let (released, claimed) = try await whileLocked({ try await WriteLock.holdClaims(of: "limited", on: backend, in: directory) }) {
            asked in try await store.take("limited", now: asked)
        }
        #expect(claimed.map(\.id) == [id])
        let start = try #require(try await store.history(of: id).last)
        #expect(start.to == .running)
        #expect(start.at >= released, "the claim is stamped \(released - start.at) ms before the lock it waited for was released")
        #expect(try #require(claimed.first).leaseExpiresAt == start.at + 30_000)
    }

    @Test func anEnqueueThatWaitedForTheFileIsCreatedAfterIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await StoreBackend.sqlite.make(directory)
        store.stampTimes(with: SystemTimeSource())
        let (released, id) = try await whileLocked({ try await WriteLock.hold(on: .sqlite, in: directory) }) { asked in
            try await store.add(job(), now: asked)
        }
        let created = try #require(try await store.history(of: id).first)
        #expect(created.at >= released, "the job is created \(released - created.at) ms before the lock it waited for was released")
    }

    @Test func commitNumbersFollowTheCommitsOfEveryConnectionToTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = [try await StoreBackend.sqlite.make(directory), try await StoreBackend.sqlite.make(directory)]
        // Each store commits twice in a row, then the other: a store that knew the counter after
        // its own commit must read it again after the other's. Every job: created, claimed,
        // succeeded; two enqueues in a row once, which share a number.
        var order: [JobID] = []
        for round in 0..<6 {
            let store = stores[round / 2 % 2]
            let id = try await store.add(job(), now: 1_000)
            if round == 3 { order.append(try await store.add(job(), now: 1_000)) }
            _ = try await store.claim(queue: "default", limit: 1, owner: "w1", leaseDuration: 30_000, now: 1_000, excluding: Set(order))
            try await store.succeed(id, now: 1_000)
        }
        let rows = try await stores[0].transaction(now: 1_000) { tx, _ in
            try tx.query("SELECT tx, job_id, seq FROM job_history ORDER BY tx, job_id, seq", [])
        }
        let history = rows.map { row in row.map { value -> Int64 in if case .integer(let number) = value { number } else { -1 } } }
        // The commits in the order they were made: each job's creation, claim and success, and in
        // the fourth round a second creation right after the first.
        var commits: [[Int64]] = []
        for index in 0..<6 {
            let id = Int64(index < 4 ? index + 1 : index + 2)
            commits.append([id, 0])
            if index == 3 { commits.append([5, 0]) }
            commits += [[id, 1], [id, 2]]
        }
        #expect(history.map { Array($0.dropFirst()) } == commits, "\(history)")
        // Creations odd, changes even; every change a number of its own, the two creations one.
        #expect(history.allSatisfy { ($0[2] == 0) == ($0[0] % 2 == 1) }, "\(history)")
        let changes = history.filter { $0[2] > 0 }.map { $0[0] }
        #expect(Set(changes).count == changes.count, "\(history)")
        #expect(Set(history.filter { $0[2] == 0 }.map { $0[0] }).count == 6, "\(history)")  // seven jobs
    }

    @Test(arguments: StoreBackend.all) func aRetryRunsAgainAFullBackoffAfterTheFailureItsHistoryShows(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, id) = try await storeWithARunningJob(backend, in: directory)
        let failure = JobFailure(type: "Boom", message: "boom", retryable: true)
        let (_, _) = try await whileLocked({ try await WriteLock.hold(on: backend, in: directory) }) { asked in
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .retry(failure, after: 300))], now: asked)
        }
        let failed = try #require(try await store.history(of: id).last)
        #expect(failed.to == .scheduled)
        #expect(try await store.job(id).runAt == failed.at + 300)
    }

    @Test(arguments: StoreBackend.all) func aWaitTimesOutAFullTimeoutAfterTheWaitItsHistoryShows(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, id) = try await storeWithARunningJob(backend, in: directory)
        let (released, waited) = try await whileLocked({ try await WriteLock.hold(on: backend, in: directory) }) { asked in
            try await store.waitForSignal(.first(id), owner: "w1", name: "go", timeout: 300, now: asked)
        }
        #expect(waited == .ended(.waiting))
        let wait = try #require(try await store.history(of: id).last)
        #expect(wait.to == .waiting && wait.at >= released, "the wait is stamped \(released - wait.at) ms before the lock's release")
        #expect(try await store.job(id).waitDeadline == wait.at + 300)
    }

    @Test(arguments: StoreBackend.all) func aHandOffsDeadlineIsCountedFromTheHandOffItsHistoryShows(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, id) = try await storeWithARunningJob(backend, in: directory)
        let request = HandOffRequest(carrier: "c", reference: "r", timeout: 300)
        let (released, state) = try await whileLocked({ try await WriteLock.hold(on: backend, in: directory) }) { asked in
            try await store.handOff(.first(id), owner: "w1", to: request, now: asked)
        }
        #expect(state == .handedOff)
        let handedOff = try #require(try await store.history(of: id).last)
        #expect(handedOff.to == .handedOff && handedOff.at >= released, "stamped \(released - handedOff.at) ms before the release")
        #expect(try await store.job(id).handOff?.deadline == handedOff.at + 300)
    }
}
