import Foundation

/// A request or download that failed on the way rather than by the server's answer: the connection
/// could not be made, broke, or went silent. It retries (see ``RetryableConditions``).
public struct TransportError: Error, CustomStringConvertible, Sendable {
    /// What happened, in one line, naming the host and port.
    public let message: String

    /// Creates the error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// The host and port of `url`, as messages name them.
    package static func place(of url: URL) -> String {
        "\(url.host ?? "?"):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    /// The connection to `url` closed before the response's body ended.
    package static func closedEarly(_ url: URL) -> TransportError {
        TransportError("\(place(of: url)) closed the connection before the response ended")
    }

    /// An `errno` in words.
    package static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset by the server"
        case ETIMEDOUT: "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH: "the host is unreachable"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
