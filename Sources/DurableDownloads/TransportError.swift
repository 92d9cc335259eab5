import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

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

    /// `error`, thrown while fetching `url`, as a transport error with a plain message; errors that
    /// are not about the connection (a cancellation, the download's own, a status) pass through.
    static func from(_ error: any Error, url: URL) -> any Error {
        let place = "\(url.host ?? "?"):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
        switch error {
        case let error as IOError:
            return TransportError("could not reach \(place): \(reason(errno: error.errnoCode))")
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return TransportError("could not reach \(place): the host name does not resolve")
            }
            let last = error.connectionErrors.last?.error
            return TransportError("could not reach \(place): \(last.map(describe) ?? "no address could be connected to")")
        case let error as HTTPClientError where error == .connectTimeout:
            return TransportError("could not connect to \(place) within the connect timeout")
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return TransportError("\(place) closed the connection before the response ended")
        case let error as HTTPClientError where error == .readTimeout:
            return TransportError("\(place) sent nothing for the read timeout")
        case let error as HTTPClientError:
            return TransportError("the request to \(place) failed: \(error)")
        case let error as ChannelError:
            return TransportError("the connection to \(place) failed: \(describe(error))")
        default:
            return error
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError: reason(errno: error.errnoCode)
        case ChannelError.connectTimeout: "the connection attempt timed out"
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.eof: "the connection was closed"
        default: "\(error)"
        }
    }

    private static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset by the server"
        case ETIMEDOUT: "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH: "the host is unreachable"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
