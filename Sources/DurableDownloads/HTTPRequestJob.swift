import Crypto
import DurableQueue
import Foundation
import Logging

/// One header line.
public struct HeaderField: Codable, Sendable, Hashable {
    /// The header's name, such as `Accept`.
    public var name: String
    /// Its value.
    public var value: String

    /// Creates a header line.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP request to send durably: the input of an ``HTTPRequestJob``, stored as JSON. Put no
/// secret here; credentials come from the ``CredentialsProvider`` when the request is sent.
public struct HTTPRequestSpec: Codable, Sendable, Hashable {
    /// The method, upper-case: `GET`, `POST` …
    public var method: String
    /// The URL (http or https).
    public var url: String
    /// Request headers, in order (not secrets).
    public var headers: [HeaderField]
    /// A body held inline (stored base64 in the file); for large bodies use ``bodyFile``.
    public var body: Data?
    /// A file whose content is the body, streamed when the request is sent.
    public var bodyFile: String?

    /// Creates a request.
    public init(method: String = "GET", url: String, headers: [HeaderField] = [], body: Data? = nil, bodyFile: String? = nil) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
    }

    /// Identical requests have equal fingerprints: SHA-256 over method, URL, headers and body (or
    /// the body file's path and size).
    public var fingerprint: String {
        var hasher = SHA256()
        func add(_ text: String) { hasher.update(data: Data((text + "\n").utf8)) }
        add(method)
        add(url)
        for header in headers { add("\(header.name.lowercased()): \(header.value)") }
        if let body { hasher.update(data: body) }
        if let bodyFile {
            let size = (try? FileManager.default.attributesOfItem(atPath: bodyFile)[.size] as? Int) ?? -1
            add("file \(bodyFile) \(size)")
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

extension HTTPRequestSpec: StoresFilePaths {
    /// The request with its ``bodyFile`` mapped: stored relative to a base that moves with the app.
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> HTTPRequestSpec {
        var request = self
        request.bodyFile = try bodyFile.map(transform)
        return request
    }
}

/// A response: status, headers, and the body inline (small) or in a file (large).
public struct HTTPResponseRecord: Codable, Sendable, Hashable {
    /// The status code (below 400: larger ones end the job as an ``HTTPStatusError``).
    public var status: Int
    /// The response headers, in order.
    public var headers: [HeaderField]
    /// The body, when at most the inline limit.
    public var body: Data?
    /// The file holding the body, when larger.
    public var bodyFile: String?
}

extension HTTPResponseRecord: StoresFilePaths {
    /// The response with its ``bodyFile`` mapped: stored relative to a base that moves with the app.
    public func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> HTTPResponseRecord {
        var response = self
        response.bodyFile = try bodyFile.map(transform)
        return response
    }
}

/// Sends an ``HTTPRequestSpec`` and records the response. A status of 400 or more is an error
/// (``HTTPStatusError``), retried when ``RetryableConditions`` says so, after `Retry-After` if given.
public struct HTTPRequestJob: Job {
    public typealias Input = HTTPRequestSpec
    public typealias Output = HTTPResponseRecord
    public static let name = "durable.http-request"
    /// Requests need the network: they wait while the queue's network conditions say offline.
    public static let needsNetwork = true

    /// What carries the bytes.
    let transport: any HTTPTransport
    let credentials: CredentialsProvider?
    let retryable: RetryableConditions
    /// Bodies up to this many bytes are kept inline in the output; larger ones go to a file.
    let inlineBodyLimit: Int
    /// Where large response bodies are written (a path or a stored path, `{queue}/responses`).
    let responseDirectory: String
    /// The data protection class of response files (see `HTTPJobs`).
    let fileProtection: FileProtection?
    /// How long the response body may stay silent before the attempt fails with
    /// ``TransferStalledError`` (and retries).
    let idleTimeout: Duration

    public func shouldRetry(after error: any Error) -> Bool {
        retryable.allowRetry(after: error)
    }

    public func run(_ input: HTTPRequestSpec, context: JobContext) async throws -> HTTPResponseRecord {
        guard let url = URL(string: input.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw DownloadError("'\(input.url)' is not an http(s) URL")
        }
        var headers = input.headers
        if let credentials { headers.replace(with: try await credentials(url)) }
        let progress = ProgressReporter(context: context)
        var body: TransportRequest.Body?
        if let bytes = input.body {
            body = .bytes(bytes)
        } else if let bodyFile = input.bodyFile {
            let size = (try FileManager.default.attributesOfItem(atPath: bodyFile)[.size] as? Int) ?? 0
            body = .file(path: bodyFile, size: size) { sent in await progress.report(size > 0 ? Double(sent) / Double(size) : 1) }
        }
        let response = try await transport.send(
            TransportRequest(method: input.method, url: url, headers: headers, body: body, timeout: .seconds(300)))
        let status = response.status
        if status >= 400 {
            throw HTTPStatusError(
                status: status, body: try await response.body.prefix(),
                retryAfter: response.header("Retry-After").flatMap(Int64.init).map { .seconds($0) })
        }
        let total = response.header("Content-Length").flatMap(Int.init)
        let responseDirectory = try context.resolvedPath(responseDirectory)
        let (inline, bodyFile) = try await IdleWatchdog.run(timeout: idleTimeout) { [inlineBodyLimit, fileProtection] watchdog in
                var inline: [UInt8] = []
                var file: PartFile?
                var received = 0
                for try await chunk in response.body {
                    watchdog.heard()
                    received += chunk.count
                    if file == nil && inline.count + chunk.count <= inlineBodyLimit {
                        inline += chunk
                    } else {
                        if file == nil {
                            try FileManager.default.createDirectory(atPath: responseDirectory, withIntermediateDirectories: true)
                            // Named after this attempt: a file there is an earlier try of the same attempt's.
                            file = try PartFile(
                                path: "\(responseDirectory)/response-\(context.id)-\(context.attempt)", created: true, keeping: 0)
                            if let path = file?.path { FileProtectionFlags.apply(fileProtection, to: [path]) }
                            try inline.withUnsafeBytes { try file?.append($0) }
                            inline = []
                        }
                        try chunk.withUnsafeBytes { try file?.append($0) }
                    }
                    if let total, total > 0 { await progress.report(Double(received) / Double(total)) }
                }
                return (inline, file?.path)
        }
        return HTTPResponseRecord(
            status: status, headers: response.headers,
            body: bodyFile == nil ? Data(inline) : nil, bodyFile: bodyFile)
    }
}

/// Saves a transfer's progress in the job row, at most every 100 ms (and always at 100 %).
///
/// Progress is informative: a save that fails is logged and the transfer goes on. (A lost lease
/// needs no handling here: the engine's heartbeat stops the attempt.)
actor ProgressReporter {
    private let context: JobContext
    private var lastSaved = ContinuousClock.now - .seconds(1)

    init(context: JobContext) { self.context = context }

    func report(_ fraction: Double) async {
        let now = ContinuousClock.now
        guard fraction >= 1 || now - lastSaved >= .milliseconds(100) else { return }
        lastSaved = now
        do {
            try await context.saveProgress(min(1, max(0, fraction)))
        } catch {
            context.logger.debug("could not save the transfer's progress: \(error)")
        }
    }
}
