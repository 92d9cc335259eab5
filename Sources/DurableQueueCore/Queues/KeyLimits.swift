/// The flow control of one partition key of a queue (``EnqueueOptions/partitionKey``: a customer, a
/// tenant, a remote host): how many of its jobs run at once, the least time between two of its
/// starts, and how many of its starts a window allows. Every process and PostgreSQL node keeps them
/// together: each key's next allowed start and recent starts are stored, so a restart or a crash
/// never lets a key start early.
///
/// A queue's own ``QueueConfiguration/partitionLimit``, ``QueueConfiguration/keyThrottle`` and
/// ``QueueConfiguration/keyRateLimit`` apply to every key; ``QueueConfiguration/keyOverrides``
/// give some keys their own (tiers). Jobs without a key are not limited per key.
///
/// For example, premium customers may run 10 syncs at once, the others one:
/// ```swift
/// try await queue.queues.configure(QueueConfiguration(
///     "sync", partitionLimit: 1, keyOverrides: ["premium:*": KeyLimits(concurrencyLimit: 10)]))
/// ```
public struct KeyLimits: Sendable, Hashable {
    /// How many jobs of the key may run at once over every process; 0 for no limit.
    public var concurrencyLimit: Int
    /// The least time between two starts of the key (from the previous start, or from its end:
    /// then the key's jobs run one at a time); nil for none. Its ``Throttle/mutability`` does not
    /// apply: a key's interval is read when its next job starts.
    public var throttle: Throttle?
    /// The most starts of the key per sliding window; nil for none.
    public var rateLimit: RateLimit?

    /// Creates the limits of a key; by default none.
    public init(concurrencyLimit: Int = 0, throttle: Throttle? = nil, rateLimit: RateLimit? = nil) {
        self.concurrencyLimit = concurrencyLimit
        self.throttle = throttle
        self.rateLimit = rateLimit
    }

    /// Throws `invalidArgument` for a negative limit or interval, or an empty rate limit.
    func validate() throws {
        if concurrencyLimit < 0 {
            throw DurableQueueError.invalidArgument("key concurrency limit", "\(concurrencyLimit) is negative; use 0 for none")
        }
        try throttle?.validate()
        try rateLimit?.validate()
    }
}
