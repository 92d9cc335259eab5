import DurableDownloads
import DurableDownloadsURLSession
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A carrier that starts nothing: it remembers what it was handed, and carries what the test says.
private final class RecordingCarrier: DownloadCarrier {
    let name = "recording-carrier"
    private let state = Mutex<(handed: [CarriedDownload], carried: Set<String>)>(([], []))

    var handed: [CarriedDownload] { state.withLock { $0.handed } }
    func attach(to http: HTTPJobs) {}
    func carry(_ download: CarriedDownload, request: TransportRequest, resumeData: Data?) async throws {
        state.withLock {
            $0.handed.append(download)
            $0.carried.insert(download.reference)
        }
    }
    func carriedReferences() async -> Set<String> { state.withLock { $0.carried } }
    func stopCarrying(_ references: Set<String>) async { state.withLock { $0.carried.subtract(references) } }
}

/// Downloads handed to a carrier outside the process (a `URLSession` download task here; a
/// background session on an iPhone): the job waits handed off, and the carrier's report places
/// and checks the file.
@Suite(.timeLimit(.minutes(2))) struct CarriedDownloadTests {
    @Test func aURLSessionDownloadTaskCarriesTheDownloadAndTheJobSucceedsWithItsDigest() async throws {
        let server = try await TestHTTPServer()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        var resource = TestHTTPServer.Resource(size: 300_000)
        resource.contentDispositionName = "report.pdf"
        server.serve("doc", resource)
        server.serve("gone", TestHTTPServer.Resource(size: 10))
        let expected = sha256Hex(resource.content())
        try await withRunningQueue { queue in
            let http = HTTPJobs(
                queue: queue, transport: URLSessionTransport(), downloadCarrier: URLSessionDownloadCarrier(configuration: .ephemeral))
            http.register()
            let handle = try await http.download(
                DownloadRequest(url: server.baseURL + "/files/doc", directory: files.path("out"), sha256: expected))
            let result = try await handle.result(timeout: .seconds(20))
            #expect(result.path == files.path("out/report.pdf") && result.sha256 == expected && result.bytes == 300_000)
            #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: result.path)))) == expected)
            #expect(!FileManager.default.fileExists(atPath: files.path("out/doc.part")))
            let states = try await queue.store.history(of: handle.id).map(\.to.rawValue)
            #expect(states.suffix(3) == ["running", "handed_off", "succeeded"], "\(states)")

            // An error status is the attempt's failure: a 404 does not retry.
            let missing = try await http.download(DownloadRequest(url: server.baseURL + "/files/none", directory: files.path("out")))
            let outcome = try await missing.outcome(timeout: .seconds(20))
            #expect(outcome.failure?.message.contains("404") == true, "\(outcome)")
            _ = try await queue.store.job(missing.id)
        }
        try await server.shutdown()
    }

    /// The carrier's process is killed after the body is placed and before its report commits: the
    /// relaunched queue gives the lost transfer back, and the next attempt finishes from the placed
    /// body without a request. Then the same with another process reporting the end.
    @Test(arguments: StoreBackend.all, ["place", "finish"])
    func aCarrierKilledBetweenPlacingAndReportingCostsNoSecondFetch(_ backend: StoreBackend, _ mode: String) async throws {
        let server = try await TestHTTPServer()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let resource = TestHTTPServer.Resource(size: 2_000_000)
        server.serve("video.mp4", resource)
        let expected = sha256Hex(resource.content())
        let location = try await backend.location(files)

        // The app hands the download off, and goes away.
        let id: JobID
        let handed: CarriedDownload
        do {
            let queue = try await backend.queue(in: files)
            let carrier = RecordingCarrier()
            let http = HTTPJobs(queue: queue, transport: URLSessionTransport(), downloadCarrier: carrier)
            http.register()
            let handle = try await http.download(
                DownloadRequest(url: server.baseURL + "/files/video.mp4", directory: files.path("out"), sha256: expected))
            _ = try await queue.drain()
            #expect(try await queue.store.job(handle.id).state == .handedOff)
            handed = try #require(carrier.handed.first)
            id = handle.id
        }
        #expect(server.requests.isEmpty, "the app fetched nothing itself")

        // The carrier, in another process, fetches the body and places it.
        let carrierProcess = try WorkerProcess(
            ["carry", location, handed.reference, server.baseURL + "/files/video.mp4", mode], executable: "durableq-download-worker")
        #expect(await carrierProcess.waitForLine("placed"))
        if mode == "finish" {
            #expect(await carrierProcess.nextLine { $0.hasPrefix("recorded") || $0.hasPrefix("refused") } == "recorded succeeded")
            #expect(await carrierProcess.waitForExit() == 0)
        } else {
            carrierProcess.kill()
            _ = await carrierProcess.waitForExit()
        }
        #expect(server.requests.count == 1)

        // The relaunched app: its carrier knows no transfer any more.
        let queue = try await backend.queue(in: files)
        let http = HTTPJobs(queue: queue, transport: URLSessionTransport(), downloadCarrier: RecordingCarrier())
        http.register()
        let report = try await queue.drain()
        let result = try await queue.handle(DownloadJob.self, id: id).result(timeout: .seconds(10))
        #expect(result.path == files.path("out/video.mp4") && result.sha256 == expected, "\(report)")
        #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: result.path)))) == expected)
        #expect(server.requests.count == 1, "fetched again: \(server.requests.count) requests")
        let reasons = try await queue.store.history(of: id).compactMap(\.reason)
        if mode == "place" {
            #expect(reasons.contains { $0.hasPrefix("given back: 'recording-carrier' no longer carries") }, "\(reasons)")
        }
        try await server.shutdown()
    }
}
