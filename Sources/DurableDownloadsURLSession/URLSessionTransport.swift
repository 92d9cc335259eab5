import DurableDownloads
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An `HTTPTransport` over `URLSession`, in the foreground: each exchange is a data task of a
/// session of its own, its body streamed to the job as the delegate receives it. The system's HTTP
/// stack and TLS on Apple platforms (no NIO linked); FoundationNetworking (libcurl) on Linux.
///
/// `URLSession` has no pull-based body: its delegate is handed data as it arrives, and a suspended
/// task does not pause a transfer on every platform (on Linux it starts over when resumed). Chunks
/// the job has not written yet wait in memory: as much as the network outruns the disk, which is
/// little on any disk a phone or a server has.
public struct URLSessionTransport: HTTPTransport {
    /// The settings each exchange's session starts from (cookies, proxies, TLS, headers of its own).
    public let configuration: URLSessionConfiguration
    /// Which networks requests may use.
    public let access: NetworkAccess
    /// How long a request may wait for data (to connect, or between two chunks) before it fails
    /// with a `TransportError` and retries.
    public let requestTimeout: Duration

    /// A transport whose sessions start from `configuration` (default: ephemeral — no cookies,
    /// caches or credentials on disk), sending requests on the networks `access` allows.
    public init(
        configuration: URLSessionConfiguration = .ephemeral, access: NetworkAccess = NetworkAccess(), requestTimeout: Duration = .seconds(60)
    ) {
        self.configuration = configuration
        self.access = access
        self.requestTimeout = requestTimeout
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let configuration = sessionConfiguration(timeout: request.timeout)
        let transfer = Transfer(url: request.url, sent: request.uploadProgress)
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: Self.serialQueue())
        let task: URLSessionTask
        switch request.body {
        case .file(let path, _, _):
            task = session.uploadTask(with: URLRequest(request, access: access), fromFile: URL(fileURLWithPath: path))
        case .bytes, nil:
            task = session.dataTask(with: URLRequest(request, access: access))
        }
        let response = try await transfer.head(of: task)
        let reading = BodyReading(transfer: transfer, task: task)
        return TransportResponse(
            status: response.statusCode, headers: Self.headers(of: response), body: TransportBody { try await reading.next() })
    }

    /// The session's settings for an exchange that may last `timeout`: nothing cached (a resume
    /// must see what the server sends), bodies as sent (no decoding of a compressed range).
    private func sessionConfiguration(timeout: Duration) -> URLSessionConfiguration {
        let configuration = configuration.copy() as! URLSessionConfiguration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = requestTimeout.seconds
        configuration.timeoutIntervalForResource = timeout.seconds
        access.apply(to: configuration)
        return configuration
    }

    /// A queue that runs one delegate call at a time, in order.
    private static func serialQueue() -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// The response's headers, by name (`URLSession` merges repeated ones and keeps no order).
    private static func headers(of response: HTTPURLResponse) -> [HeaderField] {
        response.allHeaderFields.compactMap { name, value -> HeaderField? in
            guard let name = name as? String else { return nil }
            return HeaderField(name, "\(value)")
        }.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }
}

extension TransportRequest {
    /// What an uploaded file's progress is told, if the body is a file.
    fileprivate var uploadProgress: (@Sendable (Int) async -> Void)? {
        if case .file(_, _, let sent) = body { return sent }
        return nil
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's intervals count them.
    fileprivate var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension URLRequest {
    /// `request` as a `URLRequest` on the networks `access` allows, asking for the body as it is
    /// stored (`Accept-Encoding: identity`) unless the request says otherwise: a resumed range must
    /// be the bytes the part file holds.
    init(_ request: TransportRequest, access: URLSessionTransport.NetworkAccess) {
        self.init(url: request.url)
        httpMethod = request.method
        for header in request.headers { addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.headers.contains(where: { $0.name.caseInsensitiveCompare("Accept-Encoding") == .orderedSame }) {
            setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        if case .bytes(let data) = request.body { httpBody = data }
        access.apply(to: &self)
    }
}
