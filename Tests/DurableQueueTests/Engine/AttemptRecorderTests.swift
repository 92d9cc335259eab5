import Foundation
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
                        let state = try await recorder.record(FinishedAttempt(id: job.id, owner: "w1", outcome: .succeeded(output: "1")))
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
            let state = try await recorder.record(FinishedAttempt(id: id, owner: "someone-else", outcome: .succeeded(output: "1")))
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
            try await recorder.record(FinishedAttempt(id: id, owner: "w1", outcome: .succeeded(output: "1")))
        }
        #expect(error?.code == .databaseLocked)
        try other.execute("ROLLBACK")
        #expect(try await store.job(id).state == .running)
    }
}
