import AsyncHTTPClient
import DurableQueue
import DurableQueueDashboard
import DurableQueueTestSupport
import Foundation
import Logging
import Testing
import NIOCore
import NIOHTTP1

/// Returns its input.
package struct Echo: Job {
    package static let name = "echo"
    package init() {}
    package func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// Waits for signal `approved` and returns its payload (a name).
package struct Approve: Job {
    package static let name = "approve"
    package init() {}
    package func run(_ input: String, context: JobContext) async throws -> String {
        try await context.waitForSignal("approved", as: String.self)
    }
}

/// Always fails, without retrying.
package struct Refuse: Job {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "refused on purpose" }
    }
    package static let name = "refuse"
    package init() {}
    package func run(_ input: String, context: JobContext) async throws -> String { throw Refusal() }
    package func shouldRetry(after error: any Error) -> Bool { false }
}

/// A dashboard on a store in a temporary directory (a SQLite file, or a PostgreSQL schema),
/// listening on a free port of 127.0.0.1, with a second queue on the same store for the test's own
/// jobs (as a worker process would be).
package struct DashboardFixture: Sendable {
    /// The queue the test enqueues on and runs (not the dashboard's).
    package let workers: JobQueue
    package let dashboard: Dashboard
    /// `http://127.0.0.1:PORT`.
    package let base: String
    package let client: HTTPClient
    package let directory: TemporaryDirectory

    /// The response to one request, its body as text.
    package struct Reply: Sendable {
        package let status: Int
        package let headers: HTTPHeaders
        package let body: String

        /// The body parsed as JSON.
        package func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) }

        /// The body as a JSON object.
        package func object() throws -> [String: Any] {
            guard let object = try json() as? [String: Any] else { throw FixtureError("not a JSON object: \(body.prefix(300))") }
            return object
        }
    }

    package struct FixtureError: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// Sends one request to the dashboard (redirects are not followed).
    package func send(
        _ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil,
        authorized: Bool = false
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if authorized { request.headers.add(name: "Authorization", value: "Bearer \(dashboard.token)") }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    /// Runs `body` with a running dashboard (on a read-only SQLite connection if `readOnly`); stops it and removes the directory afterwards.
    package static func with(_ backend: StoreBackend = .sqlite, readOnly: Bool = false, _ body: @Sendable (DashboardFixture) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workers = try await backend.queue(in: directory)
        workers.register(Echo())
        workers.register(Refuse())
        workers.register(Approve())
        let dashboard = try Dashboard(
            queue: try await backend.queue(in: directory, readOnly: readOnly),
            configuration: Dashboard.Configuration(port: 0, refreshInterval: .milliseconds(100)),
            logger: Logger(label: "dashboard", factory: { _ in SwiftLogNoOpLogHandler() }))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
        let (urls, listening) = AsyncStream.makeStream(of: String.self)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await dashboard.run { url in listening.yield(url) } }
                guard let url = await urls.first(where: { _ in true }), let port = URL(string: url)?.port else {
                    throw FixtureError("the dashboard never said where it listens")
                }
                try await body(
                    DashboardFixture(workers: workers, dashboard: dashboard, base: "http://127.0.0.1:\(port)", client: client, directory: directory))
                group.cancelAll()
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
