import AsyncHTTPClient
import DurableDownloads
import DurableDownloadsAsyncHTTPClient
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Passes each exchange to another transport, noting the requests and cutting the first body short.
private final class RecordingTransport: HTTPTransport {
    let base: any HTTPTransport
    let requests = Mutex<[TransportRequest]>([])
    let cutFirstBodyAfter: Int

    init(base: any HTTPTransport, cutFirstBodyAfter: Int) {
        self.base = base
        self.cutFirstBodyAfter = cutFirstBodyAfter
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let first = requests.withLock { requests in
            requests.append(request)
            return requests.count == 1
        }
        var response = try await base.send(request)
        guard first else { return response }
        // The first body stops after `cutFirstBodyAfter` bytes, as a dropped connection does.
        let cut = CutBody(response.body, after: cutFirstBodyAfter, url: request.url)
        response.body = TransportBody { try await cut.next() }
        return response
    }
}

/// A body that breaks after a number of bytes; pulled by one task at a time.
private final class CutBody: @unchecked Sendable {
    private var iterator: TransportBody.AsyncIterator
    private var sent = 0
    private let limit: Int
    private let url: URL

    init(_ body: TransportBody, after limit: Int, url: URL) {
        self.iterator = body.makeAsyncIterator()
        self.limit = limit
        self.url = url
    }

    func next() async throws -> [UInt8]? {
        if sent >= limit { throw TransportError("\(url.host ?? "?") closed the connection (recording transport)") }
        let chunk = try await iterator.next()
        sent += chunk?.count ?? 0
        return chunk
    }
}

/// The download and request jobs run over any ``HTTPTransport``: the jobs keep the bookkeeping
/// (resume, checkpoints, SHA-256), the transport only carries the bytes.
@Suite(.timeLimit(.minutes(2))) struct TransportSeamTests {
    @Test func aDownloadOverAnotherTransportResumesWithRangeAfterItsBodyBreaks() async throws {
        let server = try await TestHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let resource = TestHTTPServer.Resource(size: 400_000)
        server.serve("f.bin", resource)
        let transport = RecordingTransport(base: AsyncHTTPClientTransport(client: .shared), cutFirstBodyAfter: 150_000)
        try await withRunningQueue { queue in
            let files = try TemporaryDirectory()
            defer { files.remove() }
            let http = HTTPJobs(queue: queue, transport: transport, checkpointBytes: 16 << 10)
            http.register()
            let handle = try await http.download(
                DownloadRequest(url: server.baseURL + "/files/f.bin", directory: files.path("out")), options: quickRetries)
            let result = try await handle.result(timeout: .seconds(30))
            #expect(result.sha256 == sha256Hex(resource.content()) && result.bytes == 400_000)
            let ranges = transport.requests.withLock { $0.map { request in request.headers.first { $0.name == "Range" }?.value } }
            #expect(ranges.count == 2 && ranges[0] == nil && (ranges[1]?.hasPrefix("bytes=") ?? false) && ranges[1] != "bytes=0-", "\(ranges)")
            let error = try await queue.store.job(handle.id).error
            #expect(error?.type == "TransportError", "\(String(describing: error))")
        }
    }
}
