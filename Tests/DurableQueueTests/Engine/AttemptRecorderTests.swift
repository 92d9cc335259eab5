import Foundation
import Synchronization
import Testing

@testable import DurableQueue

@Suite struct AttemptRecorderTests {
    @Test func manyEndingsAtOnceAreEachCommittedBeforeTheirCallerHears() async throws {
        try await withStore { store, directory in
            for index in 0..<200 { _ = try await store.add(job(input: "{\"n\":\(index)}")) }
            let claimed = try await store.take(limit: 200)
            #expect(claimed.count == 200)
            let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
            let path = directory.path("jobs.sqlite")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for job in claimed {
                    group.addTask {
                        let state = try await recorder.record(FinishedAttempt(job.attemptID, owner: "w1", outcome: .succeeded(output: "1")))
                        #expect(state == .succeeded)
                        // Another connection sees it: the ending is in the file, not only in memory.
                        let reader = try SQLiteJobStore(path: path)
                        #expect(try await reader.job(job.id).state == .succeeded)
                    }
                }
                try await group.waitForAll()
            }
            let events = try await store.perform { store in
                try store.connection.scalarInt64("SELECT count(*) FROM job_events WHERE to_state = 'succeeded'")
            }
            #expect(events == 200)
        }
    }

    @Test func anEndingFromAWorkerThatLostTheLeaseIsNotRecorded() async throws {
        try await withStore { store, _ in
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
        let other = try Connection(path: path, options: StorageOptions())
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

/// Claims up to the freed room from queue "default" for worker "w1", and keeps what it was handed.
private final class TestRefiller: AttemptRefiller {
    private let state = Mutex((freed: [Int](), admitted: [JobID](), visibleElsewhere: [Bool]()))
    private let path: String

    init(path: String) { self.path = path }

    func claimDue(in store: isolated SQLiteJobStore, freeing freed: Int, now: Int64) throws -> [ClaimedJob] {
        state.withLock { $0.freed.append(freed) }
        return try store.claimWithinTransaction(queue: "default", limit: freed, owner: "w1", leaseDuration: 30_000, now: now, kinds: nil, excluding: [])
    }

    func admit(_ jobs: [ClaimedJob]) {
        // Handed over only once committed: another connection already sees the jobs running.
        let visible = jobs.map { job in
            (try? Connection(path: path, options: StorageOptions()).scalarInt64(
                "SELECT count(*) FROM jobs WHERE id = ? AND state = 'running'", [job.id.rawValue])) == 1
        }
        state.withLock { $0.admitted += jobs.map(\.id); $0.visibleElsewhere += visible }
    }

    var freed: [Int] { state.withLock { $0.freed } }
    var admitted: [JobID] { state.withLock { $0.admitted } }
    var visibleElsewhere: [Bool] { state.withLock { $0.visibleElsewhere } }
}

extension AttemptRecorderTests {
    @Test func theTransactionThatRecordsEndingsClaimsTheJobsTakingTheirPlaces() async throws {
        try await withStore { store, directory in
            let first = try await store.add(job(input: "{\"n\":1}"))
            let second = try await store.add(job(input: "{\"n\":2}"))
            _ = try await store.take(limit: 1)
            let recorder = AttemptRecorder(store: store, time: SystemTimeSource())
            let refiller = TestRefiller(path: directory.path("jobs.sqlite"))
            recorder.refiller = refiller

            let state = try await recorder.record(FinishedAttempt(.first(first), owner: "w1", outcome: .succeeded(output: "1")))
            #expect(state == .succeeded)
            #expect(refiller.freed == [1])
            #expect(refiller.admitted == [second])
            #expect(refiller.visibleElsewhere == [true])
            let history = try await store.perform { store in
                var rows: [String] = []
                try store.connection.query("SELECT job_id, to_state FROM job_events ORDER BY id") { rows.append("\($0.int64(0)) \($0.string(1))") }
                return rows
            }
            #expect(history == ["1 pending", "2 pending", "1 running", "1 succeeded", "2 running"])
        }
    }

    @Test func theConcurrencyLimitHoldsWhileEndingsClaimTheNextJobs() async throws {
        let tracker = RunTracker()
        let configuration = JobQueue.Configuration(maxConcurrentJobs: 3, pollInterval: .milliseconds(20))
        try await withRunningQueue(configuration: configuration, register: { $0.register(Append(tracker: tracker)) }) { queue in
            let handles = try await queue.enqueue(Append.self, batch: (0..<60).map(String.init))
            for handle in handles { _ = try await handle.result() }
            #expect(tracker.startedInputs.count == 60)
            #expect(tracker.peak == 3)
        }
    }
}
