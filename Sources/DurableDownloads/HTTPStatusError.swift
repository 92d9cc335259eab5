import DurableQueue
import Foundation

/// A response with status 400 or above: the status, the start of the body, and when the server
/// asked to be tried again (`Retry-After`).
public struct HTTPStatusError: RetryAfterError, CustomStringConvertible, Sendable {
    /// The response status code.
    public let status: Int
    /// The first bytes of the response body (at most 4 KiB), as text.
    public let body: String
    /// The `Retry-After` delay the server sent, if any (seconds form).
    public let retryAfter: Duration?

    /// Creates the error for a response.
    public init(status: Int, body: String, retryAfter: Duration?) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
    }

    /// `HTTP 404 Not Found`, then a one-line excerpt of the body: an HTML page's title, or the
    /// body's first line, at most 100 characters.
    public var description: String {
        let head = "HTTP \(status)" + (Self.reasonPhrases[status].map { " \($0)" } ?? "")
        guard let excerpt = Self.excerpt(of: body), excerpt != head, !head.hasSuffix(excerpt) else { return head }
        return "\(head): \(excerpt)"
    }

    /// The title of an HTML body, or the first non-empty line of another, whitespace folded and cut
    /// to 100 characters; nil if there is nothing to show.
    static func excerpt(of body: String) -> String? {
        var text = body
        if let open = body.range(of: "<title>", options: .caseInsensitive),
            let close = body.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<body.endIndex)
        {
            text = String(body[open.upperBound..<close.lowerBound])
        } else if body.range(of: "<html", options: .caseInsensitive) != nil {
            return nil
        }
        let line = text.split(whereSeparator: \.isNewline).map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .first { !$0.isEmpty }
        guard let line else { return nil }
        return line.count > 100 ? String(line.prefix(99)) + "…" : line
    }

    /// The reason phrases of the error statuses (RFC 9110 and the registry's others).
    static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
        409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Payload Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
        418: "I'm A Teapot", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked", 424: "Failed Dependency",
        425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons", 500: "Internal Server Error",
        501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        505: "HTTP Version Not Supported", 506: "Variant Also Negotiates", 507: "Insufficient Storage", 508: "Loop Detected",
        510: "Not Extended", 511: "Network Authentication Required",
    ]
}

/// Which failed attempts of requests and downloads are tried again (within the job's retry policy).
public struct RetryableConditions: Sendable, Hashable {
    /// Statuses that retry. Default: 408, 429, and 500–599.
    public var statuses: Set<Int>
    /// Whether transport failures (refused or reset connections, timeouts, a connection closed
    /// mid-body) retry. Default true.
    public var transportErrors: Bool

    /// Creates conditions; see each property for its default.
    public init(statuses: Set<Int> = Set([408, 429]).union(500...599), transportErrors: Bool = true) {
        self.statuses = statuses
        self.transportErrors = transportErrors
    }

    /// Whether an attempt that failed with `error` should be tried again.
    func allowRetry(after error: any Error) -> Bool {
        switch error {
        case is CancellationError: false
        case let status as HTTPStatusError: statuses.contains(status.status)
        case is DownloadError: false
        default: transportErrors
        }
    }
}
