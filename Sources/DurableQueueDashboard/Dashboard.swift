import DurableQueue
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A web dashboard for a queue's file or database: queues, jobs, one job's history, groups and
/// schedules, updated live, with cancel, retry and pause/resume.
///
/// It reads and acts through the library, like `durableq`, on the ``JobQueue`` it is given: give it
/// a queue of its own (opened on the same file or database) so that its reads never wait behind
/// the workers' writes. It listens on 127.0.0.1 unless told otherwise. Pages can be read by
/// anyone who can reach the port; actions need the ``token`` of this start, which
/// ``url`` carries (opening it once stores the token in a same-site cookie).
///
/// ```swift
/// let dashboard = try Dashboard(queue: try JobQueue(path: "durableq.sqlite"))
/// try await dashboard.run { url in print("dashboard: \(url)") }
/// ```
public struct Dashboard: Service {
    /// Where the dashboard listens and how it guards actions.
    public struct Configuration: Sendable {
        /// The address to listen on; `127.0.0.1` keeps it to this machine.
        public var host: String
        /// The port; 0 takes any free one (``Dashboard/run(onListening:)`` says which).
        public var port: Int
        /// The secret actions need; nil makes a random one at each start.
        public var token: String?
        /// How often live pages look for changes.
        public var refreshInterval: Duration

        /// - Parameters:
        ///   - host: The address to listen on (default: `127.0.0.1`).
        ///   - port: The port (default: 8421; 0: any free one).
        ///   - token: The secret actions need (default: a random one).
        ///   - refreshInterval: How often live pages look for changes (default: 1 s).
        public init(host: String = "127.0.0.1", port: Int = 8421, token: String? = nil, refreshInterval: Duration = .seconds(1)) {
            self.host = host
            self.port = port
            self.token = token
            self.refreshInterval = refreshInterval
        }
    }

    /// The secret that actions (cancel, retry, pause, resume) need, made at each start unless configured.
    public let token: String
    let queue: JobQueue
    let configuration: Configuration
    let logger: Logger
    /// Counts the actions this dashboard made: its own writes, which a SQLite file's change token
    /// does not show to the connection that made them.
    let actions: ActionCounter

    /// - Parameters:
    ///   - queue: The queue whose store the dashboard shows and changes.
    ///   - configuration: Where it listens and how it guards actions.
    ///   - logger: Where it logs requests that failed.
    /// - Throws: `invalidArgument` for a port outside 0…65535, a non-positive refresh interval, or
    ///   a configured token shorter than 16 characters or with characters a cookie cannot carry.
    public init(queue: JobQueue, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "DurableQueueDashboard"))
        throws
    {
        guard (0...65535).contains(configuration.port) else {
            throw DurableQueueError.invalidArgument("port", "\(configuration.port) is not a port (0…65535)")
        }
        guard configuration.refreshInterval > .zero else {
            throw DurableQueueError.invalidArgument("refreshInterval", "\(configuration.refreshInterval) is not positive")
        }
        if let token = configuration.token {
            guard token.count >= 16, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw DurableQueueError.invalidArgument("token", "use at least 16 letters, digits, '-' or '_'")
            }
        }
        self.queue = queue
        self.configuration = configuration
        self.token = configuration.token ?? Self.randomToken()
        self.logger = logger
        self.actions = ActionCounter()
    }

    /// The address to open in a browser once the dashboard listens on `port`, with the token.
    public func url(port: Int) -> String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)/?token=\(token)"
    }

    /// Serves until the task is cancelled or the service group shuts down gracefully.
    public func run() async throws {
        try await run(onListening: { _ in })
    }

    /// Serves until the task is cancelled or the service group shuts down gracefully, calling
    /// `onListening` with the URL to open (its port the one bound) once it accepts connections.
    public func run(onListening: @escaping @Sendable (String) async -> Void) async throws {
        let application = Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { [self] channel in await onListening(url(port: channel.localAddress?.port ?? configuration.port)) },
            logger: logger)
        try await application.run()
    }

    /// 64 hexadecimal digits (256 bits) from the system's secure random source.
    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}

/// How many actions a dashboard made, read by its live pages.
final class ActionCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// One more action.
    func increment() { count.add(1, ordering: .relaxed) }

    /// The actions so far.
    var value: Int { count.load(ordering: .relaxed) }
}
