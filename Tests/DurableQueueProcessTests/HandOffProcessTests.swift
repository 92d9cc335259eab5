import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Carries nothing: what a carrier whose transfers all survived looks like to the queue, which
/// only needs its name to hand off.
private struct SystemSession: HandOffCarrier {
    let name = "system-session"
    let references: Set<String>
    func carriedReferences() async -> Set<String> { references }
    func stopCarrying(_ references: Set<String>) async {}
}

/// Hands every attempt to the "system session" under the reference `job-<id>-<attempt>`.
private struct Fetch: Job {
    static let name = "fetch"
    func run(_ input: String, context: JobContext) async throws -> String {
        try await context.handOff(to: "system-session", reference: "job-\(context.id)-\(context.attempt)") {}
    }
}

/// Hand-offs across processes: the app that handed a transfer off is gone (its queue closed), the
/// transfer's end is reported by another process, and the relaunched app reads the result; a stale
/// report from another process is refused and noted.
@Suite(.timeLimit(.minutes(2))) struct HandOffProcessTests {
    @Test(arguments: StoreBackend.all) func anotherProcessReportsTheEndAndTheRelaunchedAppReadsIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let location = try await backend.location(directory)
        let id: JobID
        do {
            // The app hands the download off, then goes away.
            let app = try await backend.queue(in: directory)
            app.register(Fetch())
            app.register(carrier: SystemSession(references: []))
            let job = try await app.enqueue(Fetch.self, "https://example.invalid/big.bin")
            _ = try await app.drain()
            #expect(try await app.store.job(job.id).state == .handedOff)
            id = job.id
        }

        // The system relaunches another process for the transfer's end: a stale report first.
        let stale = try WorkerProcess(["report-handoff", location, String(id.rawValue), "2", "wrong attempt"])
        #expect(await stale.nextLine { $0.hasPrefix("refused") } == "refused handed_off 1")
        #expect(await stale.waitForExit() == 0)
        let reporter = try WorkerProcess(["report-handoff", location, String(id.rawValue), "1", "fetched 1 GB"])
        #expect(await reporter.nextLine { $0.hasPrefix("recorded") || $0.hasPrefix("refused") } == "recorded succeeded")
        #expect(await reporter.waitForExit() == 0)

        // The relaunched app reconciles (the transfer is still known, so nothing is given back) and reads the result.
        let relaunched = try await backend.queue(in: directory)
        relaunched.register(Fetch())
        relaunched.register(carrier: SystemSession(references: ["job-\(id)-1"]))
        #expect(try await relaunched.handOffs.reconcile().givenBack.isEmpty)
        #expect(try await relaunched.handle(Fetch.self, id: id).result(timeout: .seconds(5)) == "fetched 1 GB")
        let reasons = try await relaunched.store.history(of: id).compactMap(\.reason)
        #expect(reasons.contains("a result reported from outside for attempt 2 refused: the job is handed_off at attempt 1"), "\(reasons)")
        #expect(try await relaunched.store.historyIsConsistent())
    }
}
