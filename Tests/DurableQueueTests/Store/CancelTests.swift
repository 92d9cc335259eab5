import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct CancelTests {
    @Test(arguments: StoreBackend.all, [Int64(1_000), 9_000])
    func aWaitingJobIsCancelledAtOnce(_ backend: StoreBackend, runAt: Int64) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(runAt: runAt), now: 1_000)
            #expect(try await store.cancel(id, now: 2_000) == .cancelled)
            let record = try await store.job(id)
            #expect(record.state == .cancelled && record.cancelRequested && record.finishedAt == 2_000)
            #expect(try await store.take(now: 10_000).isEmpty)
            #expect(try await store.history(of: id).last?.reason == "cancel requested")
        }
    }

    @Test(arguments: StoreBackend.all) func aRunningJobGetsTheFlagAndEndsCancelled(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take()
            #expect(try await store.cancel(id, now: 2_000) == .requested)
            #expect(try await store.cancel(id, now: 2_001) == .requested)
            #expect(try await store.job(id).state == .running)
            #expect(try await store.renewLeases([.first(id)], owner: "w1", expiresAt: 9_000) == [HeldLease(attempt: .first(id), cancelRequested: true)])
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .cancelled(reason: "stopped by cancel"))], now: 3_000)
            #expect(try await store.job(id).state == .cancelled)
            // One flag event only, however often cancel is asked.
            #expect(try await store.transitions(id) == ["nil>pending", "pending>running", "running>running", "running>cancelled"])
        }
    }

    @Test(arguments: StoreBackend.all) func aFlaggedJobWhoseAttemptFailsIsCancelledNotRetried(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 5))
            _ = try await store.take()
            _ = try await store.cancel(id, now: 2_000)
            let failure = JobFailure(type: "CancellationError", message: "cancelled", retryable: true)
            let states = try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .retry(failure, after: 0))], now: 2_000)
            #expect(states == [id: .cancelled])
            #expect(try await store.take(now: 5_000).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.all) func aCancelRequestedBeforeTheEndingCommitsWinsOverASuccess(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take()
            _ = try await store.cancel(id, now: 2_000)
            let states = try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .succeeded(output: "1"))], now: 2_001)
            #expect(states == [id: .cancelled])
            let record = try await store.job(id)
            #expect(record.state == .cancelled && record.output == nil && record.finishedAt == 2_001)
            #expect(try await store.history(of: id).last?.reason == "cancel requested; attempt ended with: succeeded")
        }
    }

    @Test(arguments: StoreBackend.all) func cancellingAFinishedJobChangesNothing(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take()
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .succeeded(output: "1"))], now: 2)
            #expect(try await store.cancel(id, now: 3) == .alreadyFinished(.succeeded))
            #expect(try await store.job(id).cancelRequested == false)
            #expect(try await store.history(of: id).count == 3)
        }
    }

    @Test(arguments: StoreBackend.all) func anUnknownJobIsNotFound(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            for call in [
                { try await _ = store.cancel(JobID(42), now: 1) }, { try await _ = store.job(JobID(42)) },
                { try await _ = store.history(of: JobID(42)) },
            ] as [() async throws -> Void] {
                let error = await #expect(throws: DurableQueueError.self) { try await call() }
                #expect(error?.code == .jobNotFound)
                #expect(error?.jobID == JobID(42))
            }
        }
    }

    @Test(arguments: StoreBackend.all) func cancelBySelectionOfTagQueueAndAll(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let store = queue.store
        let tagged = try await store.add(job("a", tags: ["photos"]))
        let other = try await store.add(job("a"))
        let inB = try await store.add(job("b"))
        let running = try await store.add(job("c"))
        _ = try await store.take("c")

        #expect(try await queue.jobs.cancel(JobSelection(tag: "photos")) == 1)
        #expect(try await store.job(tagged).state == .cancelled)
        #expect(try await queue.jobs.cancel(JobSelection(tag: "photos")) == 0, "a finished job is not cancelled twice")
        #expect(try await queue.jobs.cancel(JobSelection(queues: ["b"])) == 1)
        #expect(try await store.job(inB).state == .cancelled)
        #expect(try await queue.jobs.cancel(JobSelection()) == 2)
        #expect(try await store.job(other).state == .cancelled)
        let stillRunning = try await store.job(running)
        #expect(stillRunning.state == .running && stillRunning.cancelRequested, "a running job is asked to stop")
        #expect(try await store.historyIsConsistent())
    }
}
