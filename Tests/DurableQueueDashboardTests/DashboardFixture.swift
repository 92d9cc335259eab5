import AsyncHTTPClient
import DurableQueue
import DurableQueueDashboard
import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Logging
import Testing
import NIOCore
import NIOHTTP1

/// Returns its input.
struct Echo: Job {
    static let name = "echo"
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// Always fails, without retrying.
struct Refuse: Job {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "refused on purpose" }
    }
    static let name = "refuse"
    func run(_ input: String, context: JobContext) async throws -> String { throw Refusal() }
    func shouldRetry(after error: any Error) -> Bool { false }
}

/// Where a dashboard test keeps its jobs: every backend the store boundary supports.
enum Backend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite = "SQLite"
    case postgres = "PostgreSQL"

    var testDescription: String { rawValue }

    /// The backends this run tests: SQLite, and PostgreSQL unless the run leaves out what needs a
    /// server (``TestEnvironment``).
    static var available: [Backend] { TestEnvironment.serversEnabled ? allCases : [.sqlite] }

    /// A queue on the store of `directory`: each call opens its own, as another process would.
    /// `readOnly` opens a SQLite file read-only.
    func queue(in directory: TemporaryDirectory, readOnly: Bool = false) async throws -> JobQueue {
        switch self {
        case .sqlite:
            var configuration = JobQueue.Configuration()
            configuration.storage = StorageOptions(readOnly: readOnly)
            return try JobQueue(path: directory.path("jobs.sqlite"), configuration: configuration)
        case .postgres:
            return try await JobQueue(postgres: PostgresStorage(url: try await TestPostgresServer.url(schema: TestPostgresServer.schema(for: directory))))
        }
    }
}

/// A dashboard on a store in a temporary directory (a SQLite file, or a PostgreSQL schema),
/// listening on a free port of 127.0.0.1, with a second queue on the same store for the test's own
/// jobs (as a worker process would be).
struct DashboardFixture: Sendable {
    /// The queue the test enqueues on and runs (not the dashboard's).
    let workers: JobQueue
    let dashboard: Dashboard
    /// `http://127.0.0.1:PORT`.
    let base: String
    let client: HTTPClient
    let directory: TemporaryDirectory

    /// The response to one request, its body as text.
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: String

        /// The body parsed as JSON.
        func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) }

        /// The body as a JSON object.
        func object() throws -> [String: Any] {
            guard let object = try json() as? [String: Any] else { throw FixtureError("not a JSON object: \(body.prefix(300))") }
            return object
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Sends one request to the dashboard (redirects are not followed).
    func send(
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
    static func with(_ backend: Backend = .sqlite, readOnly: Bool = false, _ body: @Sendable (DashboardFixture) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workers = try await backend.queue(in: directory)
        workers.register(Echo())
        workers.register(Refuse())
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
