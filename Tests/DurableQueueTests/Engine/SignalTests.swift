import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Counts step bodies and what each run of the handler saw.
private final class Trace: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func ran(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    subscript(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
}

/// What a clerk sends to approve an order.
private struct Approval: Codable, Sendable, Equatable {
    var clerk: String
}

/// An order: reserve (a step), wait for approval (timeout: `input` ms, or none when 0), ship (a
/// step); a timeout releases the reservation instead.
private struct Order: Job {
    static let name = "order"
    let trace: Trace

    func run(_ input: Int, context: JobContext) async throws -> String {
        try await context.step("reserve") { trace.ran("reserve") }
        do {
            let approval = try await context.waitForSignal(
                "approved", as: Approval.self, timeout: input > 0 ? .milliseconds(input) : nil)
            trace.ran("after wait")
            try await context.step("ship") { trace.ran("ship") }
            return "shipped, approved by \(approval.clerk)"
        } catch let timeout as SignalTimeoutError {
            try await context.step("release") { trace.ran("release") }
            return "released: \(timeout.signal) timed out"
        }
    }
}

/// A job that lets a timeout through.
private struct Impatient: Job {
    static let name = "impatient"
    func run(_ input: Int, context: JobContext) async throws -> String {
        try await context.waitForSignal("go", timeout: .milliseconds(input))
        return "went"
    }
}

/// Signals: a job waits for one durably (`waiting`, no slot, no lease, no attempt spent), a signal
/// from the queue wakes it or is kept for its wait, a timeout is a typed error, a cancel reaches a
/// waiting job; on both stores.
@Suite(.timeLimit(.minutes(1))) struct SignalTests {
    @Test func aSignalsResultHasAShortTextForLogsAndTools() {
        #expect([SignalResult.wokeJob, .kept, .alreadySent, .jobFinished(.succeeded)].map { "\($0)" } == ["woke job", "kept", "already sent", "job succeeded"])
    }

    @Test(arguments: StoreBackend.all) func aSignalWakesAWaitingJobWhichGoesOnWithoutRunningItsDoneSteps(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = Trace()
        let queue = try await backend.queue(in: directory)
        queue.register(Order(trace: trace))
        let job = try await queue.enqueue(Order.self, 0, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 1)))
        #expect(try await queue.drain().attemptsRun == 1)
        let row = try await queue.store.job(job.id)
        #expect(row.state == .waiting && row.leaseOwner == nil, "\(row.state)")
        #expect(row.waitingFor == "approved" && row.waitDeadline == nil)
        #expect(try await queue.store.history(of: job.id).last?.reason == "waiting for signal 'approved'")
        // Nothing runs while it waits.
        #expect(try await queue.drain().attemptsRun == 0)

        // Another queue on the same store (another process) sends the signal.
        let sender = try await backend.queue(in: directory)
        #expect(try await sender.jobs.signal(job.id, "approved", payload: Approval(clerk: "ada")) == .wokeJob)
        #expect(try await job.state() == .pending)
        #expect(try await sender.jobs.signal(job.id, "approved", payload: Approval(clerk: "bob")) == .alreadySent)

        #expect(try await queue.drain().attemptsRun == 1)
        #expect(try await job.result() == "shipped, approved by ada")
        #expect(trace["reserve"] == 1 && trace["after wait"] == 1 && trace["ship"] == 1)
        // One attempt allowed: the wait spent none.
        #expect(Set(try await job.steps().map(\.name)) == ["reserve", "signal approved", "ship"])
        // The wait took its attempt back, as a sleep does: the run that shipped was attempt 1 again.
        #expect(try await queue.store.job(job.id).attempts == 1, "the attempt that waited was taken back; the one that shipped is 1")
        #expect(try await job.steps().first(where: { $0.name == "signal approved" })?.attempt == 1)
        let reasons = try await queue.store.history(of: job.id).compactMap(\.reason)
        #expect(reasons.contains("signal 'approved' received"), "\(reasons)")
        #expect(try await queue.store.historyIsConsistent())
        #expect(try await sender.jobs.signal(job.id, "approved", payload: Approval(clerk: "eve")) == .jobFinished(.succeeded))
    }

    @Test(arguments: StoreBackend.all) func aSignalSentBeforeTheWaitIsKeptForIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = Trace()
        let queue = try await backend.queue(in: directory)
        queue.register(Order(trace: trace))
        let job = try await queue.enqueue(Order.self, 0)
        #expect(try await job.signal("approved", payload: Approval(clerk: "ada")) == .kept)
        #expect(try await queue.drain().attemptsRun == 1)
        #expect(try await job.result() == "shipped, approved by ada")
        let states = try await queue.store.history(of: job.id).map(\.to)
        #expect(!states.contains(.waiting), "\(states)")
    }

    @Test(arguments: StoreBackend.all) func aWaitTimesOutWithATypedErrorTheHandlerCatches(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = Trace()
        // A short lease: the timeouts are enforced with the recovery of expired leases.
        let configuration = JobQueue.Configuration(
            leaseDuration: .milliseconds(400), heartbeatInterval: .milliseconds(100), pollInterval: .milliseconds(20))
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Order(trace: trace))
        queue.register(Impatient())
        let started = Date().millisecondsSince1970
        let order = try await queue.enqueue(Order.self, 300)
        let impatient = try await queue.enqueue(Impatient.self, 300, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 5)))
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        #expect(try await order.result(timeout: .seconds(10)) == "released: approved timed out")
        #expect(Date().millisecondsSince1970 - started >= 300)
        #expect(trace["release"] == 1 && trace["ship"] == 0 && trace["after wait"] == 0)
        #expect(try await queue.store.history(of: order.id).contains { $0.reason == "the wait for signal 'approved' timed out" })
        // A signal after the timeout comes too late: the recorded timeout stands.
        #expect(try await order.signal("approved", payload: Approval(clerk: "late")) == .jobFinished(.succeeded))

        // Let through, the timeout fails the job at once: a retry would meet it again.
        let outcome = try await impatient.outcome(timeout: .seconds(10))
        #expect(outcome.failure?.message == "the wait for signal 'go' timed out", "\(outcome)")
        #expect(try await queue.store.job(impatient.id).attempts == 1, "the attempt that waited was taken back; the one that timed out is 1")
    }

    /// An app that runs its queue in background time asks the system to come back when a wait
    /// times out: the drain's report says when, and the next drain ends the wait and runs the job.
    @Test(arguments: StoreBackend.all) func aDrainReportsAWaitsTimeoutAndTheNextDrainEndsIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = Trace()
        let queue = try await backend.queue(in: directory)
        queue.register(Order(trace: trace))
        let started = Date().millisecondsSince1970
        let job = try await queue.enqueue(Order.self, 400)
        let report = try await queue.drain()
        let reported = Date().millisecondsSince1970
        #expect(report.attemptsRun == 1 && report.jobsStillDue == 0)
        let deadline = try #require(try await queue.store.job(job.id).waitDeadline)
        // The timeout, or the report's own time if a slow drain (a loaded machine) passed it.
        let next = try #require(report.nextDueAt?.millisecondsSince1970, "\(report)")
        #expect(deadline >= reported ? next == deadline : (deadline...reported).contains(next), "\(report), deadline \(deadline)")
        #expect((started + 400...Date().millisecondsSince1970 + 400).contains(deadline))

        try await Task.sleep(for: .milliseconds(max(0, deadline - Date().millisecondsSince1970) + 20))
        #expect(try await queue.drain().attemptsRun == 1)
        #expect(try await job.result() == "released: approved timed out")
    }

    @Test(arguments: StoreBackend.all) func aCancelReachesAWaitingJobAtOnce(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = Trace()
        let queue = try await backend.queue(in: directory)
        queue.register(Order(trace: trace))
        let job = try await queue.enqueue(Order.self, 0)
        _ = try await queue.drain()
        #expect(try await job.state() == .waiting)
        try await job.cancel()
        #expect(try await job.outcome(timeout: .seconds(5)).isCancelled)
        #expect(try await job.signal("approved", payload: Approval(clerk: "ada")) == .jobFinished(.cancelled))
        #expect(trace["after wait"] == 0)
    }

    @Test(arguments: StoreBackend.all) func signalsToNoJobOrWithNoNameAreErrors(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let notFound = await #expect(throws: DurableQueueError.self) { try await queue.jobs.signal(JobID(404), "approved") }
        #expect(notFound?.code == .jobNotFound && notFound?.jobID == JobID(404))
        let job = try await queue.enqueue(Order.self, 0)
        let unnamed = await #expect(throws: DurableQueueError.self) { try await queue.jobs.signal(job.id, "") }
        #expect(unnamed?.code == .invalidArgument)
    }

    /// The fence, in the store: an attempt its worker no longer holds neither waits nor takes a
    /// signal, and writes nothing.
    @Test(arguments: StoreBackend.all) func aStaleAttemptNeitherWaitsNorTakesASignal(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.add(job())
            _ = try await store.claim(queue: "default", limit: 1, owner: "frozen", leaseDuration: 1_000, now: 1_000)
            _ = try await store.recoverExpiredLeases(now: 5_000)
            _ = try await store.claim(queue: "default", limit: 1, owner: "live", leaseDuration: 30_000, now: 6_000)
            #expect(try await store.waitForSignal(AttemptID(job: id, number: 1), owner: "frozen", name: "go", timeout: nil, now: 7_000) == nil)
            _ = try await store.signal(id, name: "go", payload: "1", now: 7_000)
            #expect(try await store.waitForSignal(AttemptID(job: id, number: 1), owner: "frozen", name: "go", timeout: nil, now: 7_000) == nil)
            #expect(try await store.steps(of: id).isEmpty)
            #expect(try await store.job(id).state == .running)
            // The live attempt takes it.
            #expect(
                try await store.waitForSignal(AttemptID(job: id, number: 2), owner: "live", name: "go", timeout: nil, now: 7_000)
                    == .received(payload: "1"))
            #expect(try await store.steps(of: id).map { $0.output.filter { $0 != " " } } == [#"{"payload":1}"#])
            #expect(try await store.historyIsConsistent())
        }
    }
}
