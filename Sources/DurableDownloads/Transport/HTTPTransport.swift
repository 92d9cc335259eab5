import Foundation

/// What carries the bytes of the download and request jobs: one HTTP exchange per call. The jobs
/// keep the bookkeeping (resume with `Range` and `If-Range`, checkpoints, SHA-256, atomic rename,
/// retries, `Retry-After`); a transport only sends a request and streams its response.
///
/// A transport reports a failure of the connection (refused, reset, closed early, timed out) as a
/// ``TransportError``, also while the body streams, so that ``RetryableConditions`` retries it.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response's head has arrived; its body streams after.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// One request for an ``HTTPTransport``.
public struct TransportRequest: Sendable {
    /// What a request sends as its body.
    public enum Body: Sendable {
        /// These bytes.
        case bytes(Data)
        /// The file at `path`, `size` bytes long, read as it is sent; `sent` is told how many
        /// bytes were taken so far (upload progress).
        case file(path: String, size: Int, sent: @Sendable (Int) async -> Void)
    }

    /// The method, upper-case.
    public var method: String
    /// The URL (http or https).
    public var url: URL
    /// The headers, in order.
    public var headers: [HeaderField]
    /// The body, if any.
    public var body: Body?
    /// How long the whole exchange may take.
    public var timeout: Duration

    /// A request; see each property.
    public init(method: String = "GET", url: URL, headers: [HeaderField] = [], body: Body? = nil, timeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A response's head, and its body to stream.
public struct TransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, in order.
    public var headers: [HeaderField]
    /// The body, read once, chunk by chunk, as it arrives.
    public var body: TransportBody

    /// A response; see each property.
    public init(status: Int, headers: [HeaderField], body: TransportBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A response body: chunks of bytes pulled one at a time, so that a slow reader slows the sender
/// (nothing is buffered beyond the chunk asked for). Iterate it once.
public struct TransportBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let nextChunk: @Sendable () async throws -> [UInt8]?

    /// A body whose chunks `next` gives, nil at the end.
    public init(next: @escaping @Sendable () async throws -> [UInt8]?) {
        self.nextChunk = next
    }

    /// Pulls the body's chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let nextChunk: @Sendable () async throws -> [UInt8]?

        /// The next chunk, or nil at the end.
        public mutating func next() async throws -> [UInt8]? {
            try await nextChunk()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(nextChunk: nextChunk)
    }

    /// Up to `limit` bytes of the body, as text (an error status's explanation).
    func prefix(bytes limit: Int = 4_096) async throws -> String {
        var bytes: [UInt8] = []
        for try await chunk in self where bytes.count < limit {
            bytes += chunk.prefix(limit - bytes.count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension [HeaderField] {
    /// Puts each of `replacements` in place of any header of its name (case-insensitive): the
    /// credentials' headers, a resume's `Range` and `If-Range`.
    mutating func replace(with replacements: [(String, String)]) {
        for (name, value) in replacements {
            removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            append(HeaderField(name, value))
        }
    }
}
