import AsyncHTTPClient
import DurableDownloads
import DurableQueue

extension HTTPJobs {
    /// The HTTP side of `queue`, its transfers carried in-process by AsyncHTTPClient
    /// (``AsyncHTTPClientTransport``); see `HTTPJobs.init(queue:transport:…)` for the other
    /// parameters.
    ///
    /// - Parameters:
    ///   - client: The HTTP client; nil (the default) uses one with the shared client's settings but
    ///     a connect timeout of `connectTimeout`.
    ///   - connectTimeout: How long a connection may take to open (a refused one is tried again until
    ///     then) before the attempt fails with `TransportError` and retries; default 10 s. Ignored
    ///     when `client` is given: its own configuration applies.
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
