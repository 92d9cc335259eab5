/// At most ``count`` job starts of a queue in any ``window``, over every process on the file.
///
/// Starts are recorded in the `queue_starts` table, so the limit holds across restarts. It combines
/// with the queue's concurrency limit and throttle: a job starts only when all of them allow it.
///
/// For example, 100 calls a minute:
/// ```swift
/// try await queue.queues.configure(QueueConfiguration("github", rateLimit: RateLimit(100, per: .seconds(60))))
/// ```
public struct RateLimit: Sendable, Hashable {
    /// The most starts in one window.
    public var count: Int
    /// The length of the sliding window.
    public var window: Duration

    /// Creates a limit of `count` starts per `window`.
    public init(_ count: Int, per window: Duration) {
        self.count = count
        self.window = window
    }

    /// Throws `invalidArgument` unless the count and window are positive.
    func validate() throws {
        if count < 1 { throw DurableQueueError.invalidArgument("rate limit count", "\(count) is not positive") }
        if window.milliseconds < 1 {
            throw DurableQueueError.invalidArgument("rate limit window", "\(window) is shorter than 1 ms")
        }
    }
}
