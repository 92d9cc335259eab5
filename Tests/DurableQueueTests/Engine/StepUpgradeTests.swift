import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Counts step bodies by name.
private final class Bodies: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func ran(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    subscript(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
}

/// The first release of "checkout": steps "charge" and "audit", then a wait for signal "shipped".
private struct CheckoutV1: Job {
    static let name = "checkout"
    let bodies: Bodies

    func run(_ input: Int, context: JobContext) async throws -> String {
        let receipt = try await context.step("charge") {
            bodies.ran("charge")
            return "receipt-\(input)"
        }
        try await context.step("audit") { bodies.ran("audit") }
        let carrier = try await context.waitForSignal("shipped", as: String.self)
        return "\(receipt) by \(carrier)"
    }
}

/// The next release: "charge" renamed "charge card", "audit" gone, the same wait, a new step after it.
private struct CheckoutV2: Job {
    static let name = "checkout"
    let bodies: Bodies

    func run(_ input: Int, context: JobContext) async throws -> String {
        let receipt = try await context.step("charge card", formerly: ["charge"]) {
            bodies.ran("charge card")
            return "receipt-\(input)"
        }
        let carrier = try await context.waitForSignal("shipped", as: String.self)
        try await context.step("thank") { bodies.ran("thank") }
        return "\(receipt) by \(carrier)"
    }
}

/// A job resumed by newer code after a wait: its steps are found by name or former name, none runs
/// twice, and the ending names the recorded steps the new code never asked for; on both stores.
@Suite(.timeLimit(.minutes(1))) struct StepUpgradeTests {
    @Test(arguments: StoreBackend.all) func aJobResumedByNewerCodeReusesRenamedStepsAndItsEndingNamesTheUnaskedOnes(
        _ backend: StoreBackend
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bodies = Bodies()
        let old = try await backend.queue(in: directory)
        old.register(CheckoutV1(bodies: bodies))
        let job = try await old.enqueue(CheckoutV1.self, 7)
        #expect(try await old.drain().attemptsRun == 1)
        #expect(try await job.state() == .waiting)
        #expect(bodies["charge"] == 1 && bodies["audit"] == 1)

        // The new release is deployed; the signal comes; the new code resumes the job.
        let new = try await backend.queue(in: directory)
        new.register(CheckoutV2(bodies: bodies))
        #expect(try await new.jobs.signal(job.id, "shipped", payload: "ups") == .wokeJob)
        #expect(try await new.drain().attemptsRun == 1)
        #expect(try await new.handle(CheckoutV2.self, id: job.id).result() == "receipt-7 by ups")
        #expect(bodies["charge card"] == 0, "the output recorded as 'charge' was reused")
        #expect(bodies["thank"] == 1 && bodies["charge"] == 1 && bodies["audit"] == 1)
        let ending = try #require(try await new.store.history(of: job.id).last)
        #expect(ending.to == .succeeded && ending.reason == "succeeded; recorded steps not asked for: 'audit'", "\(ending.reason ?? "-")")
    }

    @Test(arguments: StoreBackend.all) func aJobWhoseStepsAreAllAskedForEndsWithoutANote(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bodies = Bodies()
        let queue = try await backend.queue(in: directory)
        queue.register(CheckoutV1(bodies: bodies))
        let job = try await queue.enqueue(CheckoutV1.self, 1)
        #expect(try await job.signal("shipped", payload: "dhl") == .kept)
        #expect(try await queue.drain().attemptsRun == 1)
        #expect(try await job.result() == "receipt-1 by dhl")
        #expect(try await queue.store.history(of: job.id).last?.reason == "succeeded")
    }
}
