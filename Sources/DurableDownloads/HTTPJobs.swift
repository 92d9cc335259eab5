import DurableQueue
import Foundation
import Synchronization

/// What happens when a request identical to a waiting or running one is enqueued.
public enum DuplicatePolicy: String, Sendable, Hashable, CaseIterable {
    /// Enqueue it anyway.
    case allow
    /// Cancel the older one (its handle reports cancellation) and enqueue the new one. The default.
    case replace
    /// Return the older one's handle.
    case join
}

/// Durable HTTP requests and downloads on a `JobQueue`: register the job types, configure the
/// request queue, enqueue, cancel.
///
/// For example:
/// ```swift
/// let queue = try JobQueue(path: "app.sqlite")
/// let http = HTTPJobs(queue: queue)  // over AsyncHTTPClient: import DurableDownloadsAsyncHTTPClient
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
    /// What carries the bytes of every request and download.
    let transport: any HTTPTransport
    let credentials: CredentialsProvider?
    let retryable: RetryableConditions
    let responseDirectory: String
    let checkpointBytes: Int64
    let idleTimeout: Duration
    let inlineBodyLimit: Int
    let downloadProgress: DownloadProgressObserver?
    let fileProtection: FileProtection?
    /// What fetches downloads outside the process, if anything.
    let downloadCarrier: (any DownloadCarrier)?
    /// The queue file and its companions (`-wal`, `-shm`, `-journal`): no download may take their names.
    let protectedPaths: Set<String>
    /// The queues this value has seen set up (see ``prepare(queue:)``).
    private let preparedQueues = PreparedQueues()

    /// How many requests (or downloads) of one host run at once on a queue these jobs create, as a
    /// browser does: 2. ``configureRequestQueue(concurrencyLimit:perHostLimit:mode:)`` and
    /// ``configureDownloadQueue(concurrencyLimit:perHostLimit:mode:)`` change it.
    public static let defaultPerHostLimit = 2

    /// Creates the HTTP side of `queue`.
    ///
    /// - Parameters:
    ///   - queue: The queue whose file holds the requests and downloads; their job types are registered on it.
    ///   - transport: What carries the bytes (see ``HTTPTransport``). `DurableDownloadsAsyncHTTPClient`
    ///     adds an initializer without it, over AsyncHTTPClient.
    ///   - credentials: Headers added when a request is sent (e.g. `Authorization`); never stored.
    ///   - retryable: Which failures retry (within each job's retry policy).
    ///   - responseDirectory: Where response bodies larger than `inlineBodyLimit` are written; by
    ///     default `responses` beside the queue file (`{queue}/responses`). Stored relative to the
    ///     queue's file bases (see `FileBases`), as the paths of requests and downloads are.
    ///   - checkpointBytes: Bytes between two download checkpoints (default 1 MiB): at most this much
    ///     is fetched again after a crash.
    ///   - idleTimeout: How long a response body (of a download or a request) may stay silent before
    ///     the attempt fails with ``TransferStalledError`` and retries (a download resuming).
    ///     Default 30 s.
    ///   - inlineBodyLimit: The largest response body kept in the job's output (default 64 KiB);
    ///     a larger one goes to a file in `responseDirectory`.
    ///   - requestQueue: The queue request jobs go on (default `http`).
    ///   - downloadQueue: The queue download jobs go on (default `downloads`).
    ///   - downloadProgress: Told as bytes of downloads run by this process arrive (for progress
    ///     bars); nil by default.
    ///   - fileProtection: The data protection class of part files and response files (Apple
    ///     platforms with data protection; ignored elsewhere); nil (the default) leaves the app's.
    ///   - downloadCarrier: What fetches downloads outside the process (a background `URLSession`:
    ///     see ``DownloadCarrier``); nil (the default) fetches them in-process over `transport`.
    ///     A download's final file keeps its part file's class.
    public init(
        queue: JobQueue, transport: any HTTPTransport, credentials: CredentialsProvider? = nil,
        retryable: RetryableConditions = RetryableConditions(), responseDirectory: String = "{queue}/responses",
        checkpointBytes: Int64 = 1 << 20, idleTimeout: Duration = .seconds(30), inlineBodyLimit: Int = 64 << 10,
        requestQueue: String = "http",
        downloadQueue: String = "downloads", downloadProgress: DownloadProgressObserver? = nil,
        fileProtection: FileProtection? = nil, downloadCarrier: (any DownloadCarrier)? = nil
    ) {
        self.fileProtection = fileProtection
        self.downloadCarrier = downloadCarrier
        self.queue = queue
        self.transport = transport
        self.credentials = credentials
        self.retryable = retryable
        self.responseDirectory = queue.storedPath(responseDirectory)
        self.checkpointBytes = max(1, checkpointBytes)
        self.idleTimeout = idleTimeout
        self.inlineBodyLimit = inlineBodyLimit
        self.requestQueue = requestQueue
        self.downloadQueue = downloadQueue
        self.downloadProgress = downloadProgress
        let file = URL(fileURLWithPath: queue.location).standardizedFileURL.resolvingSymlinksInPath().path
        self.protectedPaths = Set(["", "-wal", "-shm", "-journal"].map { file + $0 })
    }

    /// Registers ``HTTPRequestJob`` and ``DownloadJob`` so that this process runs them.
    public func register() {
        queue.register(
            HTTPRequestJob(
                transport: transport, credentials: credentials, retryable: retryable, inlineBodyLimit: inlineBodyLimit,
                responseDirectory: responseDirectory, fileProtection: fileProtection, idleTimeout: idleTimeout))
        queue.register(
            DownloadJob(
                transport: transport, credentials: credentials, retryable: retryable, checkpointBytes: checkpointBytes,
                idleTimeout: idleTimeout, progressObserver: downloadProgress, protectedPaths: protectedPaths,
                fileProtection: fileProtection, carrier: downloadCarrier))
        if let downloadCarrier {
            downloadCarrier.attach(to: self)
            queue.register(carrier: downloadCarrier)
        }
    }

    /// Sets the request queue's concurrency limit (default 2; 0 = unlimited), how many requests of
    /// one host run at once (its partition limit: requests are keyed by their URL's host; default
    /// 2; 0 = unlimited) and order.
    public func configureRequestQueue(
        concurrencyLimit: Int = 2, perHostLimit: Int = HTTPJobs.defaultPerHostLimit, mode: QueueMode = .fifo
    ) async throws {
        try await queue.queues.configure(
            QueueConfiguration(requestQueue, mode: mode, concurrencyLimit: concurrencyLimit, partitionLimit: perHostLimit))
    }

    /// Sets the download queue's concurrency limit (default 0: unlimited), how many downloads of
    /// one host run at once (default 2; 0 = unlimited) and order.
    public func configureDownloadQueue(
        concurrencyLimit: Int = 0, perHostLimit: Int = HTTPJobs.defaultPerHostLimit, mode: QueueMode = .fifo
    ) async throws {
        try await queue.queues.configure(
            QueueConfiguration(downloadQueue, mode: mode, concurrencyLimit: concurrencyLimit, partitionLimit: perHostLimit))
    }

    /// Gives queue `name` the per-host limit of ``defaultPerHostLimit`` if it has no settings yet
    /// (its first request or download, in any process); settings made before are left as they are.
    /// Asked once per queue by this value.
    private func prepare(queue name: String) async throws {
        guard preparedQueues.isNew(name) else { return }
        if try await queue.reader.queue(named: name) == nil {
            try await queue.queues.configure(QueueConfiguration(name, partitionLimit: Self.defaultPerHostLimit))
        }
    }

    /// The key a request to `url` counts against its queue's per-host limit: its host, with its
    /// port when that is not the scheme's default.
    package static func hostKey(of url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased(), !host.isEmpty else { return nil }
        let defaultPort = components.scheme?.lowercased() == "https" ? 443 : 80
        return components.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
    }

    /// Enqueues `request` on the request queue.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - duplicates: What to do when an identical request waits or runs (same method, URL,
    ///     headers and body). Default ``DuplicatePolicy/replace``.
    ///   - options: How the job is enqueued; by default up to 5 attempts. Its partition key is the
    ///     URL's host (and port, unless the scheme's) unless it names one: a new request queue runs at
    ///     most ``defaultPerHostLimit`` requests of one host at once.
    public func enqueue(
        _ request: HTTPRequestSpec, duplicates: DuplicatePolicy = .replace,
        options: EnqueueOptions = EnqueueOptions(retry: RetryPolicy(maxAttempts: 5))
    ) async throws -> JobHandle<HTTPRequestJob> {
        var request = request
        request.url = try Self.checked(url: request.url)
        var options = options
        options.queue = requestQueue
        options.partitionKey = options.partitionKey ?? Self.hostKey(of: request.url)
        try await prepare(queue: requestQueue)
        options.uniqueKey = "http-request:\(request.fingerprint)"
        options.uniquePolicy =
            switch duplicates {
            case .allow: .allow
            case .replace: .replace
            case .join: .keep
            }
        return try await queue.enqueue(HTTPRequestJob.self, request, options: options)
    }

    /// Enqueues a download on the download queue, or returns the one already there.
    ///
    /// A download of the same URL to the same directory (and requested name) that waits or runs is
    /// joined; one that failed or was cancelled is retried with fresh attempts and resumes from its
    /// checkpoint rather than starting over. A new one holds its file name in the directory from
    /// now on (recorded as the job's unique key, `download-to:<path>`): no other unfinished download
    /// uses it, and a name held by another download or by a file already there (the file, or its
    /// `.part`) is numbered as browsers do, `name (1).ext`. Unless `options` names a partition key,
    /// the URL's host (and port, unless the scheme's) is the download's: a new download queue runs at
    /// most ``defaultPerHostLimit`` downloads of one host at once.
    ///
    /// - Throws: `invalidArgument` for a URL that is not http(s) or that holds a user name or
    ///   password (it would be stored in the file: give credentials through the
    ///   ``CredentialsProvider``); a storage error.
    public func download(
        _ request: DownloadRequest, options: EnqueueOptions = EnqueueOptions(retry: .unlimited(backoff: .exponential(maximum: .seconds(60))))
    ) async throws -> JobHandle<DownloadJob> {
        var request = request
        request.url = try Self.checked(url: request.url)
        request.directory = try queue.resolvedPath(queue.storedPath(request.directory))
        // Named by stored paths (relative to their base): the same download after the app's
        // container moved is still the same.
        let identity = "download:\(request.url) -> \(queue.storedPath(request.directory))/\(request.fileName ?? "")"
        if let earlier = try await resumable(identity) { return earlier }

        var options = options
        options.queue = downloadQueue
        options.partitionKey = options.partitionKey ?? Self.hostKey(of: request.url)
        try await prepare(queue: downloadQueue)
        options.uniquePolicy = .keep
        options.tags.append(identity)
        let base = FileName.sanitized(request.fileName ?? URL(string: request.url).flatMap(FileName.fromURL) ?? "download")
        let directory = URL(fileURLWithPath: request.directory, isDirectory: true).resolvingSymlinksInPath()
        for number in 0..<1_000 {
            let name = FileName.numbered(base, number)
            let path = directory.appendingPathComponent(name).path
            let taken = FileName.isTaken(path) || FileName.isTaken(path + ".part")
            if taken || protectedPaths.contains(path) { continue }
            request.reservedName = name
            options.uniqueKey = "download-to:\(queue.storedPath(path))"
            let (handle, isNew) = try await queue.enqueueOrFind(DownloadJob.self, request, options: options)
            if isNew { return handle }
            // Held by another unfinished download: the same one (enqueued meanwhile) is joined.
            if try await queue.reader.job(handle.id).tags.contains(identity) { return handle }
        }
        throw DownloadError("no free name for '\(base)' in \(request.directory)")
    }

    /// The latest download tagged `identity` when it should be followed rather than started anew:
    /// one that waits or runs, or one that failed or was cancelled, retried here.
    private func resumable(_ identity: String) async throws -> JobHandle<DownloadJob>? {
        guard let earlier = try await queue.reader.jobs(JobFilter(tag: identity, limit: 1)).first else { return nil }
        let handle = queue.handle(DownloadJob.self, id: earlier.id)
        switch earlier.state {
        case .succeeded:
            return nil
        case .failed, .cancelled:
            do {
                try await queue.jobs.retry(earlier.id)
            } catch let error as DurableQueueError where error.code == .invalidArgument {
                // Retried by another caller meanwhile (follow it), or its name is held by another
                // download (start a new one).
                return try await handle.state().isTerminal ? nil : handle
            }
            return handle
        default:
            return handle
        }
    }

    /// `url` with its scheme and host in lower case.
    ///
    /// - Throws: `invalidArgument` for a URL that is not http(s) with a host, or that holds a user
    ///   name or password (never repeated in the message).
    package static func checked(url: String) throws -> String {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw DurableQueueError(.invalidArgument, "'\(url)' is not an http(s) URL") }
        if components.user != nil || components.password != nil {
            throw DurableQueueError(
                .invalidArgument,
                "the URL for \(host) holds a user name or password, which would be stored in the queue file: "
                    + "give credentials through the credentials provider instead (durableq: --netrc)")
        }
        components.scheme = scheme
        components.host = host.lowercased()
        return components.string ?? url
    }

    /// The requests waiting or running, oldest first.
    public func queuedRequests() async throws -> [(id: JobID, state: JobState, request: HTTPRequestSpec)] {
        let jobs = try await queue.reader.jobs(
            JobFilter(
                states: JobFilter.unfinished, queues: [requestQueue], kinds: [HTTPRequestJob.name], limit: .max, order: .oldestFirst))
        return jobs.compactMap { job in
            guard let stored = try? JSONDecoder().decode(HTTPRequestSpec.self, from: Data(job.input.utf8)),
                let spec = try? stored.mappingFilePaths(queue.resolvedPath)
            else { return nil }
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
            try await queue.jobs.cancel(queued.id)
            cancelled += 1
        }
        return cancelled
    }

    /// Cancels every waiting or running request.
    @discardableResult
    public func cancelAllRequests() async throws -> Int {
        try await queue.jobs.cancel(JobSelection(queues: [requestQueue]))
    }

    /// Stops starting requests (durably, for every process); running ones finish.
    public func pauseRequests() async throws { try await queue.queues.pause(requestQueue) }

    /// Lets requests start again.
    public func resumeRequests() async throws { try await queue.queues.resume(requestQueue) }
}

/// The names of the queues an ``HTTPJobs`` value has set up, shared by its copies.
private final class PreparedQueues: Sendable {
    private let names = Mutex<Set<String>>([])

    /// Whether `name` is new here (it is then remembered).
    func isNew(_ name: String) -> Bool { names.withLock { $0.insert(name).inserted } }
}
