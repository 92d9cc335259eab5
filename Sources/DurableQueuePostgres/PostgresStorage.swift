import DurableQueue
import Foundation

/// Where a PostgreSQL database keeps the jobs, and how to reach it.
///
/// For example:
/// ```swift
/// let storage = try PostgresStorage(url: "postgres://app@db.internal/jobs")
/// let queue = try await JobQueue(postgres: storage)
/// ```
public struct PostgresStorage: Sendable, Hashable {
    /// How to reach the server.
    public enum Endpoint: Sendable, Hashable {
        /// A host name or address, and a port.
        case tcp(host: String, port: Int)
        /// A Unix-domain socket file (such as `/var/run/postgresql/.s.PGSQL.5432`).
        case unixSocket(path: String)
    }

    /// Whether the connection is encrypted.
    public enum TLSMode: String, Sendable, Hashable {
        /// Never.
        case disable
        /// When the server offers it (the default, as libpq's `sslmode=prefer`).
        case prefer
        /// Always; a server without TLS is refused.
        case require
    }

    /// The server.
    public var endpoint: Endpoint
    /// The role to connect as.
    public var username: String
    /// Its password, if the server asks for one. Never stored in the database.
    public var password: String?
    /// The database.
    public var database: String
    /// The schema the tables live in, created if missing: several queues can share one database in
    /// schemas of their own. Letters, digits and `_` only. Default `public`.
    public var schema: String
    /// The most connections this process opens (one more listens for notifications). Default 10.
    public var maximumConnections: Int
    /// Whether to encrypt. Default `.prefer`.
    public var tls: TLSMode
    /// The longest a store call waits for the server's answer before it fails with a storage error
    /// (which an engine retries): a call whose connection died at the wrong moment of a server
    /// crash may otherwise never hear back. It fails within a quarter of this (at most a second)
    /// after the limit. Default 60 s; `call_timeout_ms` in a URL.
    public var callTimeout: Duration = .seconds(60)

    /// A database reached over TCP.
    public init(
        host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil, database: String,
        schema: String = "public", maximumConnections: Int = 10, tls: TLSMode = .prefer
    ) {
        self.endpoint = .tcp(host: host, port: port)
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.maximumConnections = maximumConnections
        self.tls = tls
    }

    /// A database reached through a Unix-domain socket.
    public init(
        unixSocketPath: String, username: String, password: String? = nil, database: String, schema: String = "public",
        maximumConnections: Int = 10
    ) {
        self.endpoint = .unixSocket(path: unixSocketPath)
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.maximumConnections = maximumConnections
        self.tls = .disable
    }

    /// A database named by a URL, as libpq reads one:
    /// `postgres://user[:password]@host[:port]/database[?schema=S&sslmode=disable|prefer|require]`
    /// (also `max_connections=N`, `call_timeout_ms=N`).
    /// `host=/directory` in the query reaches the server's socket in that directory instead.
    ///
    /// - Throws: `invalidArgument` for a URL that is not such a one (the password is never repeated).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else { throw DurableQueueError(.invalidArgument, "not a postgres:// URL") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let database = components.path.split(separator: "/").first.map(String.init) ?? ""
        guard !database.isEmpty else { throw DurableQueueError(.invalidArgument, "the postgres URL names no database") }
        let username = components.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        let port = components.port ?? Int(query["port"] ?? "") ?? 5432
        if let directory = query["host"], directory.hasPrefix("/") {
            self.init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: username, password: components.password, database: database,
                schema: query["schema"] ?? "public")
        } else {
            guard let tls = TLSMode(rawValue: query["sslmode"] ?? "prefer") else {
                throw DurableQueueError(.invalidArgument, "sslmode must be disable, prefer or require")
            }
            self.init(
                host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: port, username: username,
                password: components.password, database: database, schema: query["schema"] ?? "public", tls: tls)
        }
        if let maximum = query["max_connections"].flatMap(Int.init) { maximumConnections = maximum }
        if let timeout = query["call_timeout_ms"] {
            guard let milliseconds = Int64(timeout) else {
                throw DurableQueueError(.invalidArgument, "call_timeout_ms must be a whole number of milliseconds, not '\(timeout.prefix(40))'")
            }
            callTimeout = .milliseconds(milliseconds)
        }
    }

    /// Throws `invalidArgument` naming the first setting out of range.
    func validate() throws {
        // The schema is an identifier, which SQL cannot bind: only plain names get into a statement.
        guard let first = schema.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) || first == "_",
            schema.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }),
            schema.count <= 48
        else {
            throw DurableQueueError(.invalidArgument, "the schema name '\(schema)' must be letters, digits and _ (at most 48)")
        }
        guard callTimeout > .zero else {
            throw DurableQueueError(.invalidArgument, "callTimeout must be positive, not \(callTimeout)")
        }
        guard maximumConnections >= 1 else {
            throw DurableQueueError(.invalidArgument, "maximumConnections must be at least 1, not \(maximumConnections)")
        }
    }

    /// The server and database, for messages (never the password).
    var location: String {
        switch endpoint {
        case .tcp(let host, let port): "postgres://\(username)@\(host):\(port)/\(database) (schema \(schema))"
        case .unixSocket(let path): "postgres://\(username)@\(path)/\(database) (schema \(schema))"
        }
    }
}
