import DurableQueuePostgres
import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What the engine does when an attempt's lease is lost, or a cancel comes, while its handler runs.
@Suite(.timeLimit(.minutes(1))) struct LeaseLossTests {
    @Test(arguments: StoreBackend.all) func aHandlerNeverStartsOnALeaseThatExpiredSinceTheClaim(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let time = ManualClock()
        let configuration = JobQueue.Configuration(leaseDuration: .seconds(30), timeSource: time)
        let queue = try await backend.queue(in: directory, configuration: configuration)
        let tracker = RunTracker()
        let gate = Gate()
        gate.isOpen.withLock { $0 = true }  // a handler that started by mistake would return at once
        queue.register(Stubborn(gate: gate, tracker: tracker))
        let handle = try await queue.enqueue(Stubborn.self, "x")
        let claimed = try await queue.store.claim(
            queue: "default", limit: 1, owner: configuration.workerID, leaseDuration: 30_000, now: time.nowMilliseconds,
            kinds: [Stubborn.name])[0]
        // The process is frozen between the claim and the start of the handler, past the lease.
        time.advance(by: .seconds(31))
        await queue.engine.process(claimed, stop: StopSignal())
        #expect(tracker.startedInputs.isEmpty)
        let record = try await queue.store.job(handle.id)
        #expect(record.state == .pending && record.attempts == 0 && record.leaseOwner == nil)
        #expect(try await queue.store.history(of: handle.id).last?.reason == "the lease expired before the attempt started")
    }

    @Test(arguments: StoreBackend.all) func aHandlerThatIgnoresCancellationEndsCancelledItsResultDiscarded(_ backend: StoreBackend) async throws {
        let gate = Gate()
        // A handler waiting for the gate ignores cancellation: open it however the test ends, or a failed
        // expectation leaves the engine (and the test process) waiting for it forever.
        defer { gate.isOpen.withLock { $0 = true } }
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Stubborn(gate: gate, tracker: tracker)) }) { queue in
            let handle = try await queue.enqueue(Stubborn.self, "x")
            try await eventually("the attempt started") { tracker.running == 1 }
            try await handle.cancel()
            gate.isOpen.withLock { $0 = true }
            let outcome = try await handle.outcome()
            #expect(outcome.isCancelled && outcome.output == nil)
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.code == .cancelled)
            let record = try await queue.store.job(handle.id)
            #expect(record.state == .cancelled && record.output == nil)
            #expect(try await queue.store.history(of: handle.id).last?.reason == "cancel requested; attempt ended with: succeeded")
        }
    }

    @Test(arguments: StoreBackend.all) func aLostLeaseStopsThatAttemptAndTheJobRunsAgainHereOnlyAfterItEnds(_ backend: StoreBackend) async throws {
        let gate = Gate()
        // A handler waiting for the gate ignores cancellation: open it however the test ends, or a failed
        // expectation leaves the engine (and the test process) waiting for it forever.
        defer { gate.isOpen.withLock { $0 = true } }
        let tracker = RunTracker()
        // The lease is lost by the recovery below, not by time: a long lease keeps a loaded machine
        // (a claim slower than the lease) from releasing the first attempt before it starts.
        let configuration = JobQueue.Configuration(
            leaseDuration: .seconds(3), heartbeatInterval: .milliseconds(50), pollInterval: .milliseconds(20))
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Stubborn(gate: gate, tracker: tracker)) }) {
            queue in
            let handle = try await queue.enqueue(Stubborn.self, "x", options: EnqueueOptions(retry: .unlimited(backoff: .constant(.zero))))
            try await eventually("the first attempt started") { tracker.running == 1 }
            // Another process takes the job back as if this one had been frozen past its lease. On
            // PostgreSQL recovery skips a row another transaction holds (SKIP LOCKED): a heartbeat
            // renewing the lease (every 50 ms) can hold it at that moment; the next pass takes it.
            try await eventually("another process takes the job back") {
                try await queue.store.recoverExpiredLeases(now: Date().millisecondsSince1970 + 3_600_000).count == 1
            }
            // The heartbeat notices; the careless first attempt keeps running, and this process does
            // not claim the job again while it does.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await handle.state() == .pending)
            #expect(tracker.startedInputs == ["x attempt 1"])
            gate.isOpen.withLock { $0 = true }
            #expect(try await handle.result() == "done")
            #expect(tracker.startedInputs == ["x attempt 1", "x attempt 2"])
            let history = try await queue.store.history(of: handle.id)
            let note = try #require(history.first { $0.from == $0.to && $0.attempt == 1 })
            #expect(note.reason == "attempt 1 returned a result after its worker lost the job; discarded")
            #expect(history.last?.to == .succeeded && history.last?.attempt == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func anAttemptStoppedAsItsLeaseRanOutUnrenewedIsRecoveredNotFailed(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Store calls that wait for a lock give up quickly, as a loaded or cut-off store's do.
        let store: any JobStore =
            if backend.name == StoreBackend.sqlite.name {
                try SQLiteJobStore(path: directory.path("jobs.sqlite"), options: StorageOptions(busyTimeout: .milliseconds(100)))
            } else {
                try await {
                    var storage = try PostgresStorage(url: try await backend.location(directory))
                    storage.callTimeout = .milliseconds(300)
                    return try await PostgresJobStore(storage)
                }()
            }
        let configuration = JobQueue.Configuration(
            leaseDuration: .seconds(1), heartbeatInterval: .milliseconds(200), pollInterval: .milliseconds(20),
            storageFailureTimeout: .seconds(60))
        let queue = try JobQueue(store: store, configuration: configuration)
        let attempts = FirstAttemptWaits.Attempts()
        queue.register(FirstAttemptWaits(attempts: attempts))
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        // Default options: a stop's CancellationError is no error to retry.
        let handle = try await queue.enqueue(FirstAttemptWaits.self, "x")
        try await eventually("the first attempt started") { attempts.started == [1] }

        // Another connection holds the write lock: the heartbeats fail, the lease runs out by the
        // engine's clock, and the engine stops the handler.
        let release = try await WriteLock.hold(on: backend, in: directory)
        try await eventually("the first attempt was stopped") { attempts.stopped == [1] }
        try await release()

        // The handle rides out reads that miss the short timeout; the checks read through a store
        // with the default one.
        #expect(try await handle.result(timeout: .seconds(30)) == "done")
        #expect(attempts.started == [1, 2])
        let history = try await backend.make(directory).history(of: handle.id)
        #expect(!history.contains { $0.to == .failed }, "\(history)")
        let recovered = try #require(history.first { $0.from == .running && $0.to == .pending }, "\(history)")
        #expect(recovered.attempt == 1 && recovered.reason?.hasSuffix("stopped during attempt 1 (lease expired)") == true, "\(recovered)")
    }
}

/// Its first attempt waits until stopped (throwing the stop's CancellationError); later attempts
/// return "done".
private struct FirstAttemptWaits: Job {
    /// The attempts started, and those stopped.
    final class Attempts: Sendable {
        private let state = Mutex((started: [Int](), stopped: [Int]()))
        var started: [Int] { state.withLock { $0.started } }
        var stopped: [Int] { state.withLock { $0.stopped } }
        func start(_ attempt: Int) { state.withLock { $0.started.append(attempt) } }
        func stop(_ attempt: Int) { state.withLock { $0.stopped.append(attempt) } }
    }

    static let name = "first-attempt-waits"
    let attempts: Attempts

    func run(_ input: String, context: JobContext) async throws -> String {
        attempts.start(context.attempt)
        if context.attempt == 1 {
            do {
                try await Task.sleep(for: .seconds(600))
            } catch {
                attempts.stop(context.attempt)
                throw error
            }
        }
        return "done"
    }
}
