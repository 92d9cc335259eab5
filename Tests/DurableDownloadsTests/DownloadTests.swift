import Crypto
import DurableDownloads
import DurableDownloadsAsyncHTTPClient
import DurableDownloadsURLSession
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The transports the download and request suites run on.
enum TestTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case asyncHTTPClient = "AsyncHTTPClient"
    case urlSession = "URLSession"

    var testDescription: String { rawValue }

    /// The HTTP jobs of `queue` over this transport.
    func jobs(
        queue: JobQueue, connectTimeout: Duration = .seconds(10), credentials: CredentialsProvider? = nil,
        responseDirectory: String = "{queue}/responses", checkpointBytes: Int64 = 1 << 20, idleTimeout: Duration = .seconds(30)
    ) -> HTTPJobs {
        switch self {
        case .asyncHTTPClient:
            HTTPJobs(
                queue: queue, connectTimeout: connectTimeout, credentials: credentials, responseDirectory: responseDirectory,
                checkpointBytes: checkpointBytes, idleTimeout: idleTimeout)
        case .urlSession:
            HTTPJobs(
                queue: queue, transport: URLSessionTransport(requestTimeout: max(connectTimeout, .seconds(10))), credentials: credentials,
                responseDirectory: responseDirectory, checkpointBytes: checkpointBytes, idleTimeout: idleTimeout)
        }
    }
}

/// Runs `body` with a test server and a running queue whose HTTP job types are registered, over `transport`.
func withHTTP(
    transport: TestTransport = .asyncHTTPClient, credentials: CredentialsProvider? = nil, checkpointBytes: Int64 = 64 << 10,
    idleTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
    _ body: (TestHTTPServer, HTTPJobs, TemporaryDirectory) async throws -> Void
) async throws {
    let server = try await TestHTTPServer()
    let files = try TemporaryDirectory()
    defer { files.remove() }
    do {
        try await withRunningQueue { queue in
            let http = transport.jobs(
                queue: queue, connectTimeout: connectTimeout, credentials: credentials, responseDirectory: files.path("responses"),
                checkpointBytes: checkpointBytes, idleTimeout: idleTimeout)
            http.register()
            try await body(server, http, files)
        }
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
}

/// Quick retries for tests.
let quickRetries = EnqueueOptions(retry: RetryPolicy(maxAttempts: 5, backoff: .constant(.milliseconds(10))))

@Suite(.timeLimit(.minutes(2))) struct DownloadTests {
    @Test(arguments: TestTransport.allCases) func aDownloadResumesWithRangeAfterDroppedConnections(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            var resource = TestHTTPServer.Resource(size: 1_000_000)
            resource.dropAfter = 300_000
            resource.dropCount = 2
            server.serve("big.bin", resource)
            let expected = sha256Hex(resource.content())
            let handle = try await http.download(
                DownloadRequest(url: server.baseURL + "/files/big.bin", directory: files.path("out"), sha256: expected),
                options: quickRetries)
            let result = try await handle.result()
            #expect(result.sha256 == expected && result.bytes == 1_000_000)
            #expect(result.path == files.path("out") + "/big.bin")
            #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: result.path)))) == expected)
            #expect(!FileManager.default.fileExists(atPath: result.path + ".part"))
            let ranges = server.requests.map { $0.header("Range") }
            #expect(ranges.first == .some(nil))
            #expect(ranges.dropFirst().allSatisfy { $0?.hasPrefix("bytes=") == true }, "\(ranges)")
            #expect(server.requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"v1\"" })
            // Each resume asked only for what was missing (checkpoints every 64 KiB).
            #expect(server.bodyBytesSent < 1_000_000 + 2 * 65_536 + 2 * 65_536)
        }
    }

    @Test(arguments: TestTransport.allCases) func aChangedETagOrAServerWithoutRangesStartsOverCleanly(_ transport: TestTransport) async throws {
        for supportsRanges in [true, false] {
            try await withHTTP(transport: transport) { server, http, files in
                var resource = TestHTTPServer.Resource(size: 500_000)
                resource.dropAfter = 200_000
                resource.dropCount = 1
                resource.supportsRanges = supportsRanges
                server.serve("f", resource)
                let handle = try await http.download(
                    DownloadRequest(url: server.baseURL + "/files/f", directory: files.path("out")), options: quickRetries)
                try await eventually("the first response was cut") { server.requests.count >= 1 }
                server.change("f") { $0.etag = "v2" }  // the content "changed": the resume must not splice
                let result = try await handle.result()
                #expect(result.sha256 == sha256Hex(resource.content()) && result.bytes == 500_000)
                #expect(server.requests.count == 2)
            }
        }
    }

    @Test(arguments: TestTransport.allCases) func aStalledTransferTimesOutAndResumes(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport, idleTimeout: .seconds(1)) { server, http, files in
            var resource = TestHTTPServer.Resource(size: 600_000)
            resource.dropAfter = 250_000
            resource.dropCount = 1
            resource.stalls = true
            server.serve("f", resource)
            let handle = try await http.download(
                DownloadRequest(url: server.baseURL + "/files/f", directory: files.path("out")), options: quickRetries)
            let result = try await handle.result()
            #expect(result.sha256 == sha256Hex(resource.content()))
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.header("Range")?.hasPrefix("bytes=") == true)
            let error = try await http.queue.store.job(handle.id).error
            #expect(error?.type == "TransferStalledError", "\(String(describing: error))")
        }
    }

    @Test(arguments: TestTransport.allCases) func aRangeNotSatisfiableOnACompletePartFileFinishesIt(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let resource = TestHTTPServer.Resource(size: 100_000)
            server.serve("done.bin", resource)
            // A worker that wrote every byte and its checkpoint, then died before the rename.
            try FileManager.default.createDirectory(atPath: files.path("out"), withIntermediateDirectories: true)
            try Data(resource.content()).write(to: URL(fileURLWithPath: files.path("out/done.bin.part")))
            let checkpoint = #"{"bytes":100000,"total":100000,"etag":"\"v1\""}"#
            try await http.queue.queues.configure(QueueConfiguration("paused", isPaused: true))
            let handle = try await http.queue.enqueue(
                DownloadJob.self, DownloadRequest(url: server.baseURL + "/files/done.bin", directory: files.path("out")),
                options: EnqueueOptions(queue: "paused"))
            try http.queue.leaveCheckpoint(checkpoint, of: handle.id)
            try await http.queue.queues.resume("paused")
            let result = try await handle.result()
            #expect(server.requests.map { $0.header("Range") } == ["bytes=100000-"])
            #expect(result.bytes == 100_000 && result.sha256 == sha256Hex(resource.content()))
        }
    }

    @Test(arguments: TestTransport.allCases) func aDownloadThatDiedAfterItsRenameFinishesWithoutFetchingAgain(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let resource = TestHTTPServer.Resource(size: 100_000)
            server.serve("moved.bin", resource)
            let digest = sha256Hex(resource.content())
            try FileManager.default.createDirectory(atPath: files.path("out"), withIntermediateDirectories: true)
            try await http.queue.queues.configure(QueueConfiguration("paused", isPaused: true))
            /// A download whose worker recorded the move of `out/moved.bin`, renamed it and died.
            func diedAfterTheRename() async throws -> JobHandle<DownloadJob> {
                let handle = try await http.queue.enqueue(
                    DownloadJob.self, DownloadRequest(url: server.baseURL + "/files/moved.bin", directory: files.path("out")),
                    options: EnqueueOptions(queue: "paused"))
                let checkpoint = #"{"bytes":100000,"total":100000,"movedTo":"\#(files.path("out/moved.bin"))","sha256":"\#(digest)"}"#
                try http.queue.leaveCheckpoint(checkpoint, of: handle.id)
                return handle
            }

            try Data(resource.content()).write(to: URL(fileURLWithPath: files.path("out/moved.bin")))
            let finished = try await diedAfterTheRename()
            try await http.queue.queues.resume("paused")
            let result = try await finished.result()
            #expect(server.requests.isEmpty)
            #expect(result.path == files.path("out/moved.bin") && result.bytes == 100_000 && result.sha256 == digest)

            // The file changed since (same size): it is not taken for the download's, which starts over.
            try await http.queue.queues.pause("paused")
            try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: files.path("out/moved.bin")))
            let again = try await diedAfterTheRename()
            try await http.queue.queues.resume("paused")
            #expect(try await again.result().sha256 == digest)
            #expect(server.requests.count == 1 && server.requests.first?.header("Range") == nil)
        }
    }

    @Test(arguments: TestTransport.allCases) func aChecksumMismatchFailsAndKeepsNoFile(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            server.serve("f", TestHTTPServer.Resource(size: 10_000))
            let handle = try await http.download(
                DownloadRequest(url: server.baseURL + "/files/f", directory: files.path("out"), sha256: String(repeating: "0", count: 64)),
                options: quickRetries)
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.message.contains("SHA-256 mismatch") == true)
            #expect(try await http.queue.store.job(handle.id).attempts == 1)  // not retried
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.path("out")).isEmpty)
        }
    }

    @Test(arguments: TestTransport.allCases) func aServerSuppliedNameCannotLeaveTheDirectory(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            var resource = TestHTTPServer.Resource(size: 1_000)
            resource.contentDispositionName = "../../escape.txt"
            server.serve("f", resource)
            let handle = try await http.download(DownloadRequest(url: server.baseURL + "/files/f", directory: files.path("deep/out")))
            let result = try await handle.result()
            #expect(result.path == files.path("deep/out") + "/escape.txt")
            #expect(!FileManager.default.fileExists(atPath: files.path("escape.txt")))
        }
    }

    @Test(arguments: TestTransport.allCases) func progressIsStoredInTheJobRow(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            var resource = TestHTTPServer.Resource(size: 400_000)
            resource.bytesPerSecond = 1_000_000
            server.serve("slow", resource)
            let handle = try await http.download(DownloadRequest(url: server.baseURL + "/files/slow", directory: files.path("out")))
            try await eventually("progress is under way") {
                let progress = try await http.queue.store.job(handle.id).progress ?? 0
                return progress > 0 && progress < 1
            }
            _ = try await handle.result()
            #expect(try await http.queue.store.job(handle.id).progress == 1)
        }
    }
}

extension JobQueue {
    /// Stores `json` as a waiting job's checkpoint in the queue file, as a worker that died would
    /// have left it.
    func leaveCheckpoint(_ json: String, of id: JobID) throws {
        // The checkpoint lives in the job's attempt state (schema 29), which its extras name.
        let connection = try SQLiteConnection(path: location, options: StorageOptions())
        try connection.execute(
            """
            INSERT INTO job_attempt_state (job_id, checkpoint) VALUES (?2, ?1)
            ON CONFLICT (job_id) DO UPDATE SET checkpoint = excluded.checkpoint
            """, [Array(json.utf8), id.rawValue])
        try connection.execute("UPDATE jobs SET extras = extras | 2 WHERE id = ?", [id.rawValue])
    }
}
