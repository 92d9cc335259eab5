import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A carrier the test drives: it "carries" what it was given until the test says otherwise, and
/// remembers what it was told to stop.
private final class TestCarrier: HandOffCarrier {
    let name = "test-carrier"
    private let state = Mutex<(carried: Set<String>, stopped: Set<String>)>(([], []))

    func carry(_ reference: String) { state.withLock { _ = $0.carried.insert(reference) } }
    /// The carrier loses every transfer (its process or session went away).
    func forgetEverything() { state.withLock { $0.carried.removeAll() } }
    var stopped: Set<String> { state.withLock { $0.stopped } }
    var carried: Set<String> { state.withLock { $0.carried } }

    func carriedReferences() async -> Set<String> { state.withLock { $0.carried } }
    func stopCarrying(_ references: Set<String>) async {
        state.withLock {
            $0.stopped.formUnion(references)
            $0.carried.subtract(references)
        }
    }
}

/// What the test carrier reports or throws.
private struct CarrierError: Error, CustomStringConvertible {
    let description: String
}

/// Hands its attempt to the test carrier under the reference `<input>-<attempt>`, with the
/// deadline its input's `deadline` asks for; `"fail-to-start"` makes the start throw, and an input
/// starting with `"run-"` returns on attempts after the first instead of handing off.
private struct Transfer: Job {
    static let name = "transfer"
    struct Input: Codable, Sendable {
        var name: String
        var deadlineMilliseconds: Int64?
        var handOffOnlyOnce = false
        var laterAttemptsFail = false
        var startMilliseconds = 0
    }
    let carrier: TestCarrier

    func run(_ input: Input, context: JobContext) async throws -> String {
        if input.handOffOnlyOnce && context.attempt > 1 {
            if input.laterAttemptsFail { throw CarrierError(description: "attempt \(context.attempt) failed") }
            return "ran in-process at attempt \(context.attempt)"
        }
        let reference = "\(input.name)-\(context.attempt)"
        try await context.handOff(
            to: carrier.name, reference: reference, deadline: input.deadlineMilliseconds.map { .milliseconds($0) }
        ) { [carrier] in
            if input.name == "fail-to-start" { throw CarrierError(description: "the carrier refused the transfer") }
            if input.startMilliseconds > 0 { try await Task.sleep(for: .milliseconds(input.startMilliseconds)) }
            carrier.carry(reference)
        }
    }
}

/// Attempts handed off to a carrier outside the process: the job waits `handed_off`, holding no
/// worker slot or lease, and a report fenced by its attempt ends it — from another queue on the
/// same store, as another process would.
@Suite(.timeLimit(.minutes(1))) struct HandOffTests {
    private static func queue(
        on backend: StoreBackend, in directory: TemporaryDirectory, carrier: TestCarrier,
        configuration: JobQueue.Configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
    ) async throws -> JobQueue {
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Transfer(carrier: carrier))
        queue.register(carrier: carrier)
        return queue
    }

    @Test(arguments: StoreBackend.all) func aHandedOffJobHoldsNothingAndAReportFromAnotherQueueEndsIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier)
        let job = try await queue.enqueue(Transfer.self, .init(name: "photo"))

        let report = try await queue.drain()
        #expect(report.ending == .nothingDue && report.attemptsRun == 1, "\(report)")
        let waiting = try await queue.store.job(job.id)
        #expect(waiting.state == .handedOff && waiting.attempts == 1 && waiting.leaseOwner == nil && waiting.leaseExpiresAt == nil)
        #expect(carrier.carried == ["photo-1"])
        #expect(try await queue.store.handOffs(carrier: carrier.name) == [HandedOffJob(attempt: AttemptID(job: job.id, number: 1), reference: "photo-1")])

        // Another process (here another queue on the store, with nothing registered) reports the end.
        let other = try await backend.queue(in: directory)
        #expect(try await other.handOffs.complete(job: job.id, attempt: 1, output: "photo fetched") == .recorded(.succeeded))
        #expect(try await job.result(timeout: .seconds(5)) == "photo fetched")
        let history = try await queue.store.history(of: job.id).map { "\($0.from?.rawValue ?? "-")→\($0.to.rawValue)" }
        #expect(history.suffix(3) == ["pending→running", "running→handed_off", "handed_off→succeeded"], "\(history)")
    }

    @Test(arguments: StoreBackend.all) func aReportForAnAttemptNoLongerHandedOffIsRefusedAndNoted(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier)
        let job = try await queue.enqueue(Transfer.self, .init(name: "video"))
        _ = try await queue.drain()
        // The carrier lost attempt 1 (its session went away): the next drain gives the job back and
        // hands attempt 2 off.
        carrier.forgetEverything()
        _ = try await queue.drain()
        #expect(try await queue.store.job(job.id).attempts == 2)
        #expect(carrier.carried == ["video-2"])

        let stale = try await queue.handOffs.complete(job: job.id, attempt: 1, output: "old bytes")
        #expect(stale == .refused(state: .handedOff, attempt: 2))
        let row = try await queue.store.job(job.id)
        #expect(row.state == .handedOff && row.output == nil)
        let notes = try await queue.store.history(of: job.id).compactMap(\.reason)
        #expect(notes.contains { $0.contains("reported from outside for attempt 1 refused") }, "\(notes)")
        #expect(try await queue.handOffs.fail(job: job.id, attempt: 1, error: CarrierError(description: "late")) == .refused(state: .handedOff, attempt: 2))

        #expect(try await queue.handOffs.complete(job: job.id, attempt: 2, output: "new bytes") == .recorded(.succeeded))
        #expect(try await job.result(timeout: .seconds(5)) == "new bytes")
        #expect(try await queue.handOffs.complete(job: job.id, attempt: 2, output: "twice") == .refused(state: .succeeded, attempt: 2))
        #expect(try await job.result(timeout: .seconds(5)) == "new bytes")
    }

    @Test(arguments: StoreBackend.all) func reconciliationGivesLostTransfersBackUncounted(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier)
        let job = try await queue.enqueue(Transfer.self, .init(name: "doc", handOffOnlyOnce: true))
        // Two attempts allowed, the second fails: were the lost hand-off counted, it would be the last.
        let counted = try await queue.enqueue(
            Transfer.self, .init(name: "pdf", handOffOnlyOnce: true, laterAttemptsFail: true),
            options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(60)))))
        _ = try await queue.drain()
        #expect(try await queue.store.job(job.id).state == .handedOff)

        carrier.forgetEverything()
        let reconciled = try await queue.handOffs.reconcile()
        #expect(reconciled.givenBack == [job.id, counted.id])
        let back = try await queue.store.job(job.id)
        #expect(back.state == .pending && back.attempts == 1)
        let reasons = try await queue.store.history(of: job.id).compactMap(\.reason)
        #expect(reasons.last == "given back: 'test-carrier' no longer carries 'doc-1'")

        _ = try await queue.drain()
        #expect(try await job.result(timeout: .seconds(5)) == "ran in-process at attempt 2")
        let retried = try await queue.store.job(counted.id)
        #expect(retried.state == .scheduled && retried.attempts == 2, "\(retried.state) after \(retried.attempts) attempts")
        // A transfer the carrier still carries for a job no longer handed off is stopped.
        carrier.carry("doc-1")
        #expect(try await queue.handOffs.reconcile().stopped == [carrier.name: ["doc-1"]])
        #expect(carrier.stopped == ["doc-1"])
    }

    @Test(arguments: StoreBackend.all) func cancellingAHandedOffJobEndsItAtOnceAndStopsItsTransfer(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier)
        let job = try await queue.enqueue(Transfer.self, .init(name: "song"))
        _ = try await queue.drain()

        try await queue.jobs.cancel(job.id)
        #expect(try await queue.store.job(job.id).state == .cancelled)
        #expect(carrier.stopped == ["song-1"] && carrier.carried.isEmpty)
        #expect(try await queue.handOffs.complete(job: job.id, attempt: 1, output: "too late") == .refused(state: .cancelled, attempt: 1))
        #expect(try await job.outcome(timeout: .seconds(5)).isCancelled)
    }

    @Test(arguments: StoreBackend.all) func aHandOffPastItsDeadlineRetriesOrFailsByThePolicyAndItsTransferStops(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        // Recovery (which enforces deadlines) runs every half lease.
        var configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        configuration.leaseDuration = .milliseconds(400)
        configuration.heartbeatInterval = .milliseconds(100)
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier, configuration: configuration)
        let retried = try await queue.enqueue(Transfer.self, .init(name: "slow", deadlineMilliseconds: 300, handOffOnlyOnce: true))
        let failed = try await queue.enqueue(
            Transfer.self, .init(name: "last", deadlineMilliseconds: 300), options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 1)))

        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        #expect(try await retried.result(timeout: .seconds(10)) == "ran in-process at attempt 2")
        let outcome = try await failed.outcome(timeout: .seconds(10))
        #expect(outcome.failure?.type == "HandOffDeadline", "\(outcome)")
        #expect(outcome.failure?.message.contains("passed its deadline") == true)
        try await eventually("the carrier stopped both transfers") { carrier.stopped == ["slow-1", "last-1"] }
        // The report that comes after the deadline changes nothing.
        #expect(try await queue.handOffs.complete(job: failed.id, attempt: 1, output: "late") == .refused(state: .failed, attempt: 1))
    }

    @Test(arguments: StoreBackend.all) func aFailedStartOrAReportedFailureEndsTheAttemptByTheRetryPolicy(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier)
        let refused = try await queue.enqueue(Transfer.self, .init(name: "fail-to-start"), options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 1)))
        let reported = try await queue.enqueue(
            Transfer.self, .init(name: "flaky"), options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(1)))))
        _ = try await queue.drain()
        let notStarted = try await refused.outcome(timeout: .seconds(5))
        #expect(notStarted.failure?.message == "the carrier refused the transfer", "\(notStarted)")

        let retried = try await queue.handOffs.fail(job: reported.id, attempt: 1, error: CarrierError(description: "connection lost"))
        #expect(retried == .recorded(.scheduled) || retried == .recorded(.pending), "\(retried)")
        try await Task.sleep(for: .milliseconds(20))
        _ = try await queue.drain()
        #expect(try await queue.store.job(reported.id).attempts == 2)
        #expect(try await queue.handOffs.fail(job: reported.id, attempt: 2, error: CarrierError(description: "connection lost")) == .recorded(.failed))
        #expect(try await reported.outcome(timeout: .seconds(5)).failure?.message == "connection lost")
    }

    @Test(arguments: StoreBackend.all) func aCarrierSavesACheckpointForTheHandedOffAttemptOnly(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier)
        let job = try await queue.enqueue(Transfer.self, .init(name: "resume"))
        _ = try await queue.drain()
        #expect(try await queue.handOffs.saveCheckpoint(job: job.id, attempt: 1, checkpoint: [1, 2, 3], progress: 0.5))
        #expect(try await queue.handOffs.saveCheckpoint(job: job.id, attempt: 2, checkpoint: [9]) == false)
        let row = try await queue.store.job(job.id)
        #expect(row.checkpoint == [1, 2, 3] && row.progress == 0.5)
    }

    /// The lease goes with the hand-off's commit: heartbeats while the carrier starts (slowly) do
    /// not take that for a lost lease and stop the start.
    @Test(arguments: StoreBackend.all) func aSlowStartIsNotStoppedByTheHeartbeatsThatFollowTheHandOff(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let carrier = TestCarrier()
        var configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        configuration.leaseDuration = .milliseconds(400)
        configuration.heartbeatInterval = .milliseconds(50)
        let queue = try await Self.queue(on: backend, in: directory, carrier: carrier, configuration: configuration)
        let job = try await queue.enqueue(Transfer.self, .init(name: "slow-start", startMilliseconds: 500))
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        try await eventually("the carrier carries the transfer") { carrier.carried == ["slow-start-1"] }
        let row = try await queue.store.job(job.id)
        #expect(row.state == .handedOff && row.attempts == 1, "\(row.state) after \(row.attempts) attempts")
    }
}
