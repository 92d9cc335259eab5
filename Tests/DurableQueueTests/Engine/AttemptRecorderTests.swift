import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct AttemptRecorderTests {
    @Test(arguments: StoreBackend.all) func manyEndingsAtOnceAreEachCommittedBeforeTheirCallerHears(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, directory in
            for index in 0..<200 { _ = try await store.add(job(input: "{\"n\":\(index)}")) }
            let claimed = try await store.take(limit: 200)
            #expect(claimed.count == 200)
            let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
            // Another connection to the same database sees each ending: it is stored, not only in memory.
            let reader = try await backend.make(directory)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for job in claimed {
                    group.addTask {
                        let state = try await recorder.record(FinishedAttempt(job.attemptID, owner: "w1", outcome: .succeeded(output: "1")))
                        #expect(state == .succeeded)
                        #expect(try await reader.job(job.id).state == .succeeded)
                    }
                }
                try await group.waitForAll()
            }
            for job in claimed {
                #expect(try await store.history(of: job.id).filter { $0.to == .succeeded }.count == 1)
            }
        }
    }

    /// Each caller says it is alone, so each flusher commits its first group on its caller's thread
    /// and hands the endings that came meanwhile to a scheduled one: every ending still gets there.
    @Test(arguments: StoreBackend.all)
    func endingsThatCallersSayAreAloneAreEachCommittedBeforeTheirCallerHears(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, directory in
            for index in 0..<200 { _ = try await store.add(job(input: "{\"n\":\(index)}")) }
            let claimed = try await store.take(limit: 200)
            let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
            let reader = try await backend.make(directory)
            let heard = HeardCount()
            // Unstructured: an ending nobody commits would hang a task group, not fail the test.
            for job in claimed {
                Task {
                    let state = try await recorder.record(
                        FinishedAttempt(job.attemptID, owner: "w1", outcome: .succeeded(output: "1")), alone: true)
                    #expect(state == .succeeded)
                    #expect(try await reader.job(job.id).state == .succeeded)
                    heard.count.withLock { $0 += 1 }
                }
            }
            try await eventually("every caller heard its ending committed") { heard.count.withLock { $0 } == claimed.count }
            #expect(try await store.count(JobFilter(states: [.succeeded])) == 200)
        }
    }

    @Test(arguments: StoreBackend.all) func anEndingFromAWorkerThatLostTheLeaseIsNotRecorded(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.add(job())
            _ = try await store.take()
            let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
            let state = try await recorder.record(FinishedAttempt(.first(id), owner: "someone-else", outcome: .succeeded(output: "1")))
            #expect(state == nil)
            #expect(try await store.job(id).state == .running)
        }
    }

    @Test func aFailedTransactionReachesEveryCallerInIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path, options: StorageOptions(busyTimeout: .milliseconds(100)))
        let id = try await store.add(job())
        _ = try await store.take()
        // Another process holds the write lock longer than the busy timeout.
        let other = try SQLiteConnection(path: path, options: StorageOptions())
        try other.execute("BEGIN IMMEDIATE")
        let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
        let error = await #expect(throws: DurableQueueError.self) {
            try await recorder.record(FinishedAttempt(.first(id), owner: "w1", outcome: .succeeded(output: "1")))
        }
        #expect(error?.code == .databaseLocked)
        try other.execute("ROLLBACK")
        #expect(try await store.job(id).state == .running)
    }
}

/// How many callers heard their ending committed.
private final class HeardCount: Sendable {
    let count = Mutex(0)
}

/// Claims up to the freed room from queue "default" for worker "w1", and keeps what it was handed.
private final class TestRefiller: AttemptRefiller {
    private let state = Mutex((freed: [Int](), admitted: [JobID](), abandoned: 0))

    func refillRequest(freeing freed: Int, now: Int64) -> ClaimRequest? {
        state.withLock { $0.freed.append(freed) }
        return ClaimRequest(owner: "w1", leaseDuration: 30_000, now: now, room: freed, kinds: RunnableKinds(testKinds), queues: ["default"])
    }

    func committed(_ ended: [AttemptID], claimed jobs: [ClaimedJob], for request: ClaimRequest?) {
        state.withLock { $0.admitted += jobs.map(\.id) }
    }

    func abandon(_ request: ClaimRequest) {
        state.withLock { $0.abandoned += 1 }
    }

    var freed: [Int] { state.withLock { $0.freed } }
    var admitted: [JobID] { state.withLock { $0.admitted } }
}

extension AttemptRecorderTests {
    @Test(arguments: StoreBackend.all) func theTransactionThatRecordsEndingsClaimsTheJobsTakingTheirPlaces(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, directory in
            let first = try await store.add(job(input: "{\"n\":1}"))
            let second = try await store.add(job(input: "{\"n\":2}"))
            _ = try await store.take(limit: 1)
            let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
            let refiller = TestRefiller()

            let state = try await recorder.record(
                FinishedAttempt(.first(first), owner: "w1", outcome: .succeeded(output: "1")), refiller: refiller)
            #expect(state == .succeeded)
            #expect(refiller.freed == [1])
            #expect(refiller.admitted == [second])
            // Handed over committed: another connection sees the job running.
            #expect(try await backend.make(directory).job(second).state == .running)
            // One transaction: the ending's event and the claim's come together, in that order.
            let firstEnd = try #require(try await store.history(of: first).last)
            let secondStart = try #require(try await store.history(of: second).last)
            #expect(firstEnd.to == .succeeded && secondStart.to == .running && firstEnd.at == secondStart.at)
        }
    }

    @Test(arguments: StoreBackend.all) func theConcurrencyLimitHoldsWhileEndingsClaimTheNextJobs(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        let configuration = JobQueue.Configuration(maxConcurrentJobs: 3, pollInterval: .milliseconds(20))
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Append(tracker: tracker)) }) { queue in
            let handles = try await queue.enqueue(Append.self, batch: (0..<60).map(String.init))
            for handle in handles { _ = try await handle.result() }
            #expect(tracker.startedInputs.count == 60)
            #expect(tracker.peak == 3)
        }
    }

    @Test(arguments: StoreBackend.all) func anEngineClaimsEachNextJobInTheTransactionThatRecordsTheEndBeforeIt(_ backend: StoreBackend) async throws {
        let configuration = JobQueue.Configuration(maxConcurrentJobs: 1, pollInterval: .milliseconds(20))
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            let handles = try await queue.enqueue(Echo.self, batch: ["1", "2", "3"])
            for handle in handles { _ = try await handle.result() }
            try await expectEachNextJobClaimedWithTheEndBeforeIt(handles.map(\.id), in: queue, backend)
        }
    }

    /// A drain caps its attempts at the queue's limit: each ending's place is still free for the
    /// next job in the ending's transaction.
    @Test(arguments: StoreBackend.all) func aDrainClaimsEachNextJobInTheTransactionThatRecordsTheEndBeforeIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(maxConcurrentJobs: 1))
        queue.register(Echo())
        let handles = try await queue.enqueue(Echo.self, batch: ["1", "2", "3"])
        #expect(try await queue.drain().attemptsRun == 3)
        try await expectEachNextJobClaimedWithTheEndBeforeIt(handles.map(\.id), in: queue, backend)
    }

    /// Each of `jobs` after the first started in the transaction that recorded the end of the one
    /// before it; on PostgreSQL, whose history is in one order across jobs, after that end.
    private func expectEachNextJobClaimedWithTheEndBeforeIt(_ jobs: [JobID], in queue: JobQueue, _ backend: StoreBackend) async throws {
        // The transaction that wrote each history row: SQLite's commit number, PostgreSQL's xmin.
        let isSQLite = backend.name == StoreBackend.sqlite.name
        let transaction = isSQLite ? "tx" : "xmin::text::bigint"
        let rows = try await queue.transaction { tx in
            try tx.query("SELECT job_id, to_state, \(transaction), \(isSQLite ? "0" : "id") FROM job_events WHERE to_state IN ('running', 'succeeded')")
        }
        func event(_ id: JobID, _ state: String) -> [SQLValue]? {
            rows.first { $0[0] == .integer(id.rawValue) && $0[1] == .text(state) }
        }
        for (ended, next) in zip(jobs, jobs.dropFirst()) {
            let end = try #require(event(ended, "succeeded"), "\(rows)")
            let start = try #require(event(next, "running"), "\(rows)")
            #expect(start[2] == end[2], "\(rows)")
            guard !isSQLite else { continue }
            guard case .integer(let endPlace) = end[3], case .integer(let startPlace) = start[3] else {
                Issue.record("history ids are not integers: \(rows)")
                continue
            }
            #expect(startPlace > endPlace, "\(rows)")
        }
    }
}
