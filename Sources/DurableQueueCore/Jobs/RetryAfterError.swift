/// An error that says when to try again, such as an HTTP 429 or 503 with `Retry-After`.
///
/// When a handler throws one and the job retries, the next attempt waits at least ``retryAfter``,
/// even if the retry policy's backoff is shorter.
public protocol RetryAfterError: Error {
    /// The least time to wait before the next attempt; nil to follow the backoff alone.
    var retryAfter: Duration? { get }
}
