import AsyncHTTPClient
import DurableQueue
import Foundation

/// What happens when a request identical to a waiting or running one is enqueued.
public enum DuplicatePolicy: String, Sendable, Hashable, CaseIterable {
    /// Enqueue it anyway.
    case allow
    /// Cancel the older one (its handle reports cancellation) and enqueue the new one. The default.
    case replace
    /// Return the older one's handle.
    case join
}

/// Durable HTTP requests and downloads on a ``JobQueue``: register the job types, configure the
/// request queue, enqueue, cancel.
///
/// For example:
/// ```swift
/// let queue = try JobQueue(path: "app.sqlite")
/// let http = HTTPJobs(queue: queue, responseDirectory: "responses")
/// http.register()
/// try await http.configureRequestQueue(concurrencyLimit: 2)
/// let file = try await http.download(DownloadRequest(url: "https://example.com/big.iso", directory: "downloads"))
/// // run the queue (queue.run()), then:
/// print(try await file.result().path)
/// ```
public struct HTTPJobs: Sendable {
    /// The queue the jobs live in.
    public let queue: JobQueue
    /// The named queue requests go to. Default "http".
    public let requestQueue: String
    /// The named queue downloads go to. Default "downloads".
    public let downloadQueue: String
    let client: HTTPClient
    let credentials: CredentialsProvider?
    let retryable: RetryableConditions
    let responseDirectory: String
    let checkpointBytes: Int64
    let idleTimeout: Duration
    let inlineBodyLimit: Int
    let downloadProgress: DownloadProgressObserver?

    /// Creates the HTTP side of `queue`.
    ///
    /// - Parameters:
    ///   - client: The HTTP client; default the shared one.
    ///   - credentials: Headers added when a request is sent (e.g. `Authorization`); never stored.
    ///   - retryable: Which failures retry (within each job's retry policy).
    ///   - responseDirectory: Where response bodies larger than `inlineBodyLimit` are written.
    ///   - checkpointBytes: Bytes between two download checkpoints (default 1 MiB): at most this much
    ///     is fetched again after a crash.
    ///   - idleTimeout: How long a response body (of a download or a request) may stay silent before
    ///     the attempt fails with ``TransferStalledError`` and retries (a download resuming).
    ///     Default 30 s.
    ///   - downloadProgress: Told as bytes of downloads run by this process arrive (for progress
    ///     bars); nil by default.
    public init(
        queue: JobQueue, client: HTTPClient = .shared, credentials: CredentialsProvider? = nil,
        retryable: RetryableConditions = RetryableConditions(), responseDirectory: String = "responses",
        checkpointBytes: Int64 = 1 << 20, idleTimeout: Duration = .seconds(30), inlineBodyLimit: Int = 64 << 10,
        requestQueue: String = "http",
        downloadQueue: String = "downloads", downloadProgress: DownloadProgressObserver? = nil
    ) {
        self.queue = queue
        self.client = client
        self.credentials = credentials
        self.retryable = retryable
        self.responseDirectory = responseDirectory
        self.checkpointBytes = max(1, checkpointBytes)
        self.idleTimeout = idleTimeout
        self.inlineBodyLimit = inlineBodyLimit
        self.requestQueue = requestQueue
        self.downloadQueue = downloadQueue
        self.downloadProgress = downloadProgress
    }

    /// Registers ``HTTPRequestJob`` and ``DownloadJob`` so that this process runs them.
    public func register() {
        queue.register(
            HTTPRequestJob(
                client: client, credentials: credentials, retryable: retryable, inlineBodyLimit: inlineBodyLimit,
                responseDirectory: responseDirectory, idleTimeout: idleTimeout))
        queue.register(
            DownloadJob(
                client: client, credentials: credentials, retryable: retryable, checkpointBytes: checkpointBytes,
                idleTimeout: idleTimeout, progressObserver: downloadProgress))
    }

    /// Sets the request queue's concurrency limit (default 2; 0 = unlimited) and order.
    public func configureRequestQueue(concurrencyLimit: Int = 2, mode: QueueMode = .fifo) async throws {
        try await queue.configure(QueueConfiguration(requestQueue, mode: mode, concurrencyLimit: concurrencyLimit))
    }

    /// Enqueues `request` on the request queue.
    ///
    /// - Parameter duplicates: What to do when an identical request waits or runs (same method, URL,
    ///   headers and body). Default ``DuplicatePolicy/replace``.
    public func enqueue(
        _ request: HTTPRequestSpec, duplicates: DuplicatePolicy = .replace,
        options: EnqueueOptions = EnqueueOptions(retry: RetryPolicy(maxAttempts: 5))
    ) async throws -> JobHandle<HTTPRequestJob> {
        var options = options
        options.queue = requestQueue
        options.uniqueKey = "http-request:\(request.fingerprint)"
        options.uniquePolicy =
            switch duplicates {
            case .allow: .allow
            case .replace: .replace
            case .join: .keep
            }
        return try await queue.enqueue(HTTPRequestJob.self, request, options: options)
    }

    /// Enqueues a download on the download queue; a download of the same URL to the same place
    /// that waits or runs is joined rather than started twice.
    public func download(
        _ request: DownloadRequest, options: EnqueueOptions = EnqueueOptions(retry: .unlimited(backoff: .exponential(maximum: .seconds(60))))
    ) async throws -> JobHandle<DownloadJob> {
        var options = options
        options.queue = downloadQueue
        options.uniqueKey = "download:\(request.url) -> \(request.directory)/\(request.fileName ?? "")"
        options.uniquePolicy = .keep
        return try await queue.enqueue(DownloadJob.self, request, options: options)
    }

    /// The requests waiting or running, oldest first.
    public func queuedRequests() async throws -> [(id: JobID, state: JobState, request: HTTPRequestSpec)] {
        let jobs = try await queue.store.jobs(JobFilter(queue: requestQueue, limit: 100_000))
        return jobs.reversed().filter { !$0.state.isTerminal && $0.kind == HTTPRequestJob.name }.compactMap { job in
            guard let spec = try? JSONDecoder().decode(HTTPRequestSpec.self, from: Data(job.input.utf8)) else { return nil }
            return (job.id, job.state, spec)
        }
    }

    /// Cancels the waiting or running request identical to `request`.
    ///
    /// - Returns: How many requests were cancelled (0 or 1; more only with ``DuplicatePolicy/allow``).
    @discardableResult
    public func cancel(identicalTo request: HTTPRequestSpec) async throws -> Int {
        let fingerprint = request.fingerprint
        var cancelled = 0
        for queued in try await queuedRequests() where queued.request.fingerprint == fingerprint {
            try await queue.cancel(queued.id)
            cancelled += 1
        }
        return cancelled
    }

    /// Cancels every waiting or running request.
    @discardableResult
    public func cancelAllRequests() async throws -> Int {
        try await queue.cancel(queue: requestQueue)
    }

    /// Stops starting requests (durably, for every process); running ones finish.
    public func suspendRequests() async throws { try await queue.suspend(queue: requestQueue) }

    /// Lets requests start again.
    public func resumeRequests() async throws { try await queue.resume(queue: requestQueue) }
}
