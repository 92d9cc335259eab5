import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Counts how many times each step body ran.
private final class BodyRuns: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func ran(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    subscript(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
}

/// Three steps; the first attempt fails after the second step. A ledger step writes a row in the
/// queue's own database inside the step's transaction, with the same SQL on every store.
private struct Checkout: Job {
    static let name = "checkout"
    struct Failure: Error {}
    let runs: BodyRuns

    func run(_ input: String, context: JobContext) async throws -> String {
        let charged = try await context.step("charge") {
            runs.ran("charge")
            return "receipt-\(input)"
        }
        try await context.step("ledger", inTransaction: { tx in
            runs.ran("ledger")
            try tx.execute("INSERT INTO ledger (entry, note) VALUES (?, 'what? a literal') -- who? a comment", [.text(charged)])
        })
        if context.attempt == 1 { throw Failure() }
        let mailed = try await context.step("email") {
            runs.ran("email")
            return "mailed \(charged)"
        }
        return mailed
    }
}

/// Uses one step name twice in one attempt.
private struct Twice: Job {
    static let name = "twice"
    func run(_ input: String, context: JobContext) async throws -> String {
        _ = try await context.step("a") { 1 }
        return String(try await context.step("a") { 2 })
    }
    func shouldRetry(after error: any Error) -> Bool { false }
}

/// Durable steps: a step's body runs once for its job, its output committed with a history row,
/// fenced by the attempt; a transactional step's writes commit with it.
@Suite(.timeLimit(.minutes(1))) struct StepTests {
    @Test(arguments: StoreBackend.all) func aRetryGetsTheRecordedOutputsWithoutRunningTheBodiesAgain(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let runs = BodyRuns()
        queue.register(Checkout(runs: runs))
        _ = try await queue.transaction { tx in try tx.execute("CREATE TABLE ledger (entry text NOT NULL, note text NOT NULL)") }
        let job = try await queue.enqueue(
            Checkout.self, "42", options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 3, backoff: .constant(.zero))))
        // The retry may come after the first drain saw nothing more due (its attempt still ran).
        _ = try await queue.drain()
        if try await job.state() != .succeeded { _ = try await queue.drain() }
        #expect(try await job.result(timeout: .seconds(5)) == "mailed receipt-42")
        #expect(runs["charge"] == 1 && runs["ledger"] == 1 && runs["email"] == 1, "bodies ran \(runs["charge"]), \(runs["ledger"]), \(runs["email"]) times")
        let ledger = try await queue.transaction { tx in try tx.query("SELECT entry, note FROM ledger") }
        #expect(ledger == [[.text("receipt-42"), .text("what? a literal")]])

        let steps = try await job.steps()
        #expect(steps.map(\.name) == ["charge", "ledger", "email"])
        #expect(steps.map(\.attempt) == [1, 1, 2])
        #expect(try steps[0].output(as: String.self) == "receipt-42")
        let reasons = try await queue.store.history(of: job.id).compactMap(\.reason)
        #expect(reasons.filter { $0.hasPrefix("step ") } == ["step 'charge' recorded", "step 'ledger' recorded", "step 'email' recorded"])
    }

    @Test(arguments: StoreBackend.all) func aNameUsedTwiceInOneAttemptIsAnError(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        queue.register(Twice())
        let job = try await queue.enqueue(Twice.self, "")
        _ = try await queue.drain()
        let outcome = try await job.outcome(timeout: .seconds(5))
        #expect(outcome.failure?.message.contains("step 'a' ran already in this attempt") == true, "\(outcome)")
    }

    /// The fence, in the store: once the job was taken over (its lease expired, another worker
    /// claimed it), the old attempt records no step — and in a transaction, its writes roll back.
    @Test(arguments: StoreBackend.all) func aStaleAttemptRecordsNoStepAndItsTransactionRollsBack(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let id = try await store.add(job())
            _ = try await store.claim(queue: "default", limit: 1, owner: "frozen", leaseDuration: 1_000, now: 1_000)
            _ = try await store.recoverExpiredLeases(now: 5_000)
            _ = try await store.claim(queue: "default", limit: 1, owner: "live", leaseDuration: 30_000, now: 6_000)
            let stale = AttemptID(job: id, number: 1)
            let step = StepRecord(job: id, name: "charge", attempt: 1, output: "\"stale\"", recordedAt: 7_000)
            #expect(try await store.recordStep(step, attempt: stale, owner: "frozen") == false)
            #expect(try await store.recordStep(step, attempt: AttemptID(job: id, number: 2), owner: "frozen") == false)

            _ = try await store.transaction(now: 7_000) { tx, _ in
                _ = try tx.execute("CREATE TABLE ledger (entry text NOT NULL)", [])
            }
            struct Stale: Error {}
            await #expect(throws: Stale.self) {
                _ = try await store.transaction(now: 7_000) { tx, _ in
                    _ = try tx.execute("INSERT INTO ledger (entry) VALUES ('charged twice')", [])
                    guard try tx.recordStep(step, attempt: stale, owner: "frozen") else { throw Stale() }
                }
            }
            let rows = try await store.transaction(now: 7_000) { tx, _ in try tx.query("SELECT count(*) FROM ledger", []) }
            #expect(rows.first?.first == .integer(0))
            #expect(try await store.steps(of: id).isEmpty)

            // The live attempt records it, once.
            #expect(try await store.recordStep(step, attempt: AttemptID(job: id, number: 2), owner: "live"))
            await #expect(throws: DurableQueueError.self) {
                _ = try await store.recordStep(step, attempt: AttemptID(job: id, number: 2), owner: "live")
            }
            #expect(try await store.steps(of: id).map(\.name) == ["charge"])
            #expect(try await store.historyIsConsistent())
        }
    }
}
