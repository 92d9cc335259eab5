import AsyncHTTPClient
import DurableDownloads
import DurableQueue

extension HTTPJobs {
    /// The HTTP side of `queue`, its transfers carried in-process by AsyncHTTPClient
    /// (``AsyncHTTPClientTransport``); `HTTPJobs.init(queue:transport:…)` says more of each setting.
    ///
    /// - Parameters:
    ///   - queue: The queue whose file holds the requests and downloads.
    ///   - client: The HTTP client; nil (the default) uses one with the shared client's settings but
    ///     a connect timeout of `connectTimeout`.
    ///   - connectTimeout: How long a connection may take to open (a refused one is tried again until
    ///     then) before the attempt fails with `TransportError` and retries; default 10 s. Ignored
    ///     when `client` is given: its own configuration applies.
    ///   - credentials: Headers added when a request is sent (e.g. `Authorization`); never stored.
    ///   - retryable: Which failures retry.
    ///   - responseDirectory: Where large response bodies go; default `{queue}/responses`.
    ///   - checkpointBytes: Bytes between two download checkpoints (default 1 MiB).
    ///   - idleTimeout: How long a body may stay silent before the attempt retries (default 30 s).
    ///   - inlineBodyLimit: The largest response body kept in the job's output (default 64 KiB).
    ///   - requestQueue: The queue request jobs go on (default `http`).
    ///   - downloadQueue: The queue download jobs go on (default `downloads`).
    ///   - downloadProgress: Told as bytes of downloads run here arrive; nil by default.
    ///   - fileProtection: The data protection class of part and response files; nil by default.
    public init(
        queue: JobQueue, client: HTTPClient? = nil, connectTimeout: Duration = .seconds(10), credentials: CredentialsProvider? = nil,
        retryable: RetryableConditions = RetryableConditions(), responseDirectory: String = "{queue}/responses",
        checkpointBytes: Int64 = 1 << 20, idleTimeout: Duration = .seconds(30), inlineBodyLimit: Int = 64 << 10,
        requestQueue: String = "http", downloadQueue: String = "downloads", downloadProgress: DownloadProgressObserver? = nil,
        fileProtection: FileProtection? = nil
    ) {
        self.init(
            queue: queue, transport: AsyncHTTPClientTransport(client: client ?? DefaultHTTPClient.connecting(within: connectTimeout)),
            credentials: credentials, retryable: retryable, responseDirectory: responseDirectory, checkpointBytes: checkpointBytes,
            idleTimeout: idleTimeout, inlineBodyLimit: inlineBodyLimit, requestQueue: requestQueue, downloadQueue: downloadQueue,
            downloadProgress: downloadProgress, fileProtection: fileProtection)
    }
}
