import AsyncHTTPClient
import DurableQueue
import DurableQueueTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A job for the file the dashboard shows.
private struct Mail: Job {
    static let name = "mail"
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// `durableq serve` as a child process: it prints the URL with the token, serves the file, acts
/// with the token, and stops on Ctrl-C even while a page holds its live-update stream open.
@Suite(.timeLimit(.minutes(2))) struct CLIServeTests {
    @Test func servePrintsItsTokenURLServesTheFileAndStopsOnInterruptWithAStreamOpen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let job: JobID
        do {
            let queue = try JobQueue(path: directory.path("durableq.sqlite"))
            job = try await queue.enqueue(Mail.self, "hello", options: EnqueueOptions(queue: "outbox", delay: .seconds(3600))).id
        }
        let server = try WorkerProcess(["serve", "--port", "0"], executable: "durableq", directory: directory.url.path)
        defer { server.kill() }
        let line = try #require(await server.nextLine { $0.hasPrefix("open http://127.0.0.1:") })
        let url = try #require(URL(string: String(line.dropFirst("open ".count))))
        let port = try #require(url.port)
        let token = try #require(url.query?.split(separator: "=").last.map(String.init))
        #expect(token.count == 64)
        let base = "http://127.0.0.1:\(port)"

        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
        func send(_ path: String, method: HTTPMethod = .GET, bearer: String? = nil) async throws -> (Int, String) {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
            let response = try await client.execute(request, timeout: .seconds(20))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        do {
            #expect(try await send(url.path + "?" + (url.query ?? "")).0 == 303)
            let (status, queues) = try await send("/api/queues")
            #expect(status == 200 && queues.contains("\"queue\":\"outbox\""), "\(queues)")
            #expect(try await send("/api/jobs/\(job.rawValue)/cancel", method: .POST).0 == 403)
            let (cancelled, body) = try await send("/api/jobs/\(job.rawValue)/cancel", method: .POST, bearer: token)
            #expect(cancelled == 200 && body.contains("\"state\":\"cancelled\""), "\(body)")

            let second = try await durableq(["serve", "--port", String(port)], in: directory.url.path)
            #expect(second.status == 1)
            #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port): the port is in use"), "\(second.stderr)")

            var stream = HTTPClientRequest(url: base + "/api/events")
            stream.method = .GET
            let events = try await client.execute(stream, timeout: .seconds(60))
            #expect(events.status == .ok)
            kill(server.process.processIdentifier, SIGINT)
            let started = ContinuousClock.now
            #expect(await server.waitForExit() == 0)
            #expect(ContinuousClock.now - started < .seconds(10), "it stopped while a page held its stream open")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func serveRefusesAMissingFileAndABadPort() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = try await durableq(["serve", "--port", "0"], in: directory.url.path)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no DurableQueue file at durableq.sqlite"), "\(missing.stderr)")
        let badPort = try await durableq(["serve", "--port", "70000"], in: directory.url.path)
        #expect(badPort.status == 2)
        #expect(badPort.stderr.contains("--port must be from 0 to 65535"), "\(badPort.stderr)")
    }
}
