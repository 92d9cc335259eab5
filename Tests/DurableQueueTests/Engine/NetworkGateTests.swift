import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Needs a connection: returns its input.
private struct Upload: Job {
    static let name = "upload"
    static let needsNetwork = true
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// Needs a connection that is not metered: returns its input.
private struct BigDownload: Job {
    static let name = "big-download"
    static let networkRequirement = NetworkRequirement.unmetered
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// Network gates: jobs whose type needs the network wait in `pending`, their attempts unspent,
/// while the queue's network conditions do not meet the need, and run as soon as they do.
@Suite(.timeLimit(.minutes(1))) struct NetworkGateTests {
    /// A queue on `backend` whose network is `network` (and its queues' needs `queues`), running
    /// `Echo`, `Upload` and `BigDownload`.
    private static func queue(
        on backend: StoreBackend, in directory: TemporaryDirectory, network: NetworkConditions,
        queues: [String: NetworkRequirement] = [:]
    ) async throws -> JobQueue {
        var configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        configuration.network = network
        configuration.queueNetworkRequirements = queues
        let queue = try await backend.queue(in: directory, configuration: configuration)
        queue.register(Echo())
        queue.register(Upload())
        queue.register(BigDownload())
        return queue
    }

    @Test(arguments: StoreBackend.all) func jobsWaitUncountedWhileTheNetworkDoesNotMeetTheirNeedAndRunWhenItDoes(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let network = NetworkConditions(.offline)
        let queue = try await Self.queue(on: backend, in: directory, network: network)
        let upload = try await queue.enqueue(Upload.self, "upload")
        let big = try await queue.enqueue(BigDownload.self, "big")
        let local = try await queue.enqueue(Echo.self, "local")

        // Offline: a drain runs what needs no network and says what waits for it.
        let offline = try await queue.drain()
        #expect(offline.ending == .nothingDue && offline.attemptsRun == 1 && offline.jobsWaitingForNetwork == 2, "\(offline)")
        #expect(offline.waitingWorkNeedsNetwork && offline.nextDueAt != nil)
        #expect(try await queue.store.job(local.id).state == .succeeded)
        for id in [upload.id, big.id] {
            let record = try await queue.store.job(id)
            #expect(record.state == .pending && record.attempts == 0, "\(record.state), \(record.attempts) attempts")
        }

        // The engine hears each change at once: metered lets the upload run, not the big download.
        let engine = Task { try await queue.run() }
        defer { engine.cancel() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await queue.store.job(upload.id).attempts == 0, "claimed while offline")
        network.update(.metered)
        #expect(try await upload.result(timeout: .seconds(5)) == "upload")
        try await Task.sleep(for: .milliseconds(300))
        let waiting = try await queue.store.job(big.id)
        #expect(waiting.state == .pending && waiting.attempts == 0, "ran on a metered network")
        network.update(.unmetered)
        #expect(try await big.result(timeout: .seconds(5)) == "big")
    }

    @Test(arguments: StoreBackend.all) func aQueueThatNeedsTheNetworkWaitsForItWhateverItsJobs(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let network = NetworkConditions(.offline)
        let queue = try await Self.queue(on: backend, in: directory, network: network, queues: ["sync": .connected])
        let sync = try await queue.enqueue(Echo.self, "sync", options: EnqueueOptions(queue: "sync"))
        let local = try await queue.enqueue(Echo.self, "local")

        let offline = try await queue.drain()
        #expect(offline.attemptsRun == 1 && offline.jobsWaitingForNetwork == 1 && offline.nextDueAt != nil, "\(offline)")
        #expect(try await queue.store.job(local.id).state == .succeeded)
        let waiting = try await queue.store.job(sync.id)
        #expect(waiting.state == .pending && waiting.attempts == 0)

        network.update(.metered)
        let online = try await queue.drain()
        #expect(online.attemptsRun == 1 && online.jobsWaitingForNetwork == 0 && online.nextDueAt == nil, "\(online)")
        #expect(try await sync.result() == "sync")
    }

    @Test func theStatusMeetsRequirementsAsDocumented() {
        #expect(NetworkStatus.offline.meets(.notRequired) && !NetworkStatus.offline.meets(.connected))
        #expect(NetworkStatus.metered.meets(.connected) && !NetworkStatus.metered.meets(.unmetered))
        #expect(NetworkStatus.unmetered.meets(.unmetered))
        #expect(Upload.networkRequirement == .connected && Echo.networkRequirement == .notRequired)
    }
}
