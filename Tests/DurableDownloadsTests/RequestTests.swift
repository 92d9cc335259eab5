import DurableDownloads
import DurableDownloadsURLSession
import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.timeLimit(.minutes(2))) struct RequestTests {
    @Test(arguments: TestTransport.allCases) func transientFailuresRetryHonouringRetryAfter(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, _ in
            var resource = TestHTTPServer.Resource(size: 10)
            resource.failures = [500, 429]
            resource.retryAfterSeconds = 1
            server.serve("r", resource)
            let handle = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/files/r"), options: quickRetries)
            let response = try await handle.result()
            #expect(response.status == 200 && response.body?.count == 10)
            let starts = try await http.queue.store.history(of: handle.id).filter { $0.to == .running }.map(\.at)
            #expect(starts.count == 3)
            #expect(starts[2] - starts[1] >= 1_000, "the 429's Retry-After was honoured: \(starts)")
        }
    }

    @Test(arguments: TestTransport.allCases) func aResponseBodyThatGoesSilentTimesOutAndTheRequestRetries(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport, idleTimeout: .seconds(1)) { server, http, _ in
            var resource = TestHTTPServer.Resource(size: 40_000)
            resource.dropAfter = 10_000
            resource.dropCount = 1
            resource.stalls = true  // the first response sends 10,000 bytes, then nothing, connection open
            server.serve("r", resource)
            let handle = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/files/r"), options: quickRetries)
            let response = try await handle.result()
            #expect(response.body.map(Array.init) == resource.content())
            #expect(try await http.queue.store.job(handle.id).attempts == 2)
            let error = try await http.queue.store.job(handle.id).error
            #expect(error?.type == "TransferStalledError", "\(String(describing: error))")
        }
    }

    @Test(arguments: TestTransport.allCases) func aClientErrorFailsAtOnceWithItsStatusAndBody(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, _ in
            let handle = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/status/404"), options: quickRetries)
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.message.contains("HTTP 404 Not Found: status 404") == true)
            #expect(try await http.queue.store.job(handle.id).attempts == 1)
        }
    }

    @Test(arguments: TestTransport.allCases) func duplicatesAreReplacedJoinedOrAllowed(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, _ in
            try await http.configureRequestQueue(concurrencyLimit: 2)
            try await http.pauseRequests()
            let request = HTTPRequestSpec(method: "POST", url: server.baseURL + "/echo", body: Data("x".utf8))
            let first = try await http.enqueue(request)
            let second = try await http.enqueue(request)  // replace (the default)
            #expect(try await first.state() == .cancelled)
            await #expect(throws: DurableQueueError.self) { try await first.result() }
            let joined = try await http.enqueue(request, duplicates: .join)
            #expect(joined.id == second.id)
            let allowed = try await http.enqueue(request, duplicates: .allow)
            #expect(allowed.id != second.id)
            #expect(try await http.queuedRequests().map(\.id) == [second.id, allowed.id])
            #expect(try await http.cancel(identicalTo: request) == 2)
            #expect(try await http.queuedRequests().isEmpty)
        }
    }

    @Test(arguments: TestTransport.allCases) func credentialsAreSentButNeverStored(_ transport: TestTransport) async throws {
        let secret = "secret-token-8f3a91"
        try await withHTTP(transport: transport, credentials: { _ in [("Authorization", "Bearer \(secret)")] }) { server, http, _ in
            let handle = try await http.enqueue(HTTPRequestSpec(method: "POST", url: server.baseURL + "/echo", body: Data("hi".utf8)))
            let response = try await handle.result()
            #expect(response.body == Data("hi".utf8))
            #expect(server.requests.last?.header("Authorization") == "Bearer \(secret)")
            // Not in the database, its WAL, or anything else beside it.
            let directory = URL(fileURLWithPath: http.queue.location).deletingLastPathComponent()
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the secret")
            }
        }
    }

    @Test(arguments: TestTransport.allCases) func largeResponseBodiesGoToAFile(_ transport: TestTransport) async throws {
        try await withHTTP(transport: transport) { server, http, files in
            let resource = TestHTTPServer.Resource(size: 200_000)
            server.serve("big", resource)
            let response = try await http.enqueue(HTTPRequestSpec(url: server.baseURL + "/files/big")).result()
            let file = try #require(response.bodyFile)
            #expect(response.body == nil && file.hasPrefix(files.path("responses")))
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == resource.content())
        }
    }
}
