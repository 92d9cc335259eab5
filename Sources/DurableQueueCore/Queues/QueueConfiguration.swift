/// The order in which a queue hands out jobs of equal priority.
public enum QueueMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// First in, first out: the oldest job first.
    case fifo
    /// Last in, first out: the newest job first.
    case lifo
}

/// How a queue orders its waiting jobs of equal priority that have different partition keys.
public enum Fairness: String, Sendable, Hashable, Codable, CaseIterable {
    /// In the queue's order (FIFO or LIFO), whatever their keys. The default.
    case none
    /// The keys take turns (``EnqueueOptions/partitionKey``; jobs without one share a turn), first in
    /// first out within a key: a key with 100,000 waiting jobs does not hold back one with a single
    /// job, whose job starts within a turn of the keys. Higher priorities still start first. For
    /// FIFO queues. Stored as `by_key`.
    case byKey = "by_key"
}

/// The settings of one named queue, stored in the `queues` table and shared by every process.
public struct QueueConfiguration: Sendable, Hashable {
    /// The queue's name, as jobs name it.
    public var name: String
    /// FIFO or LIFO within a priority.
    public var mode: QueueMode
    /// How many of its jobs may run at once over all processes; 0 means unlimited.
    public var concurrencyLimit: Int
    /// While true, running jobs finish but none starts. ``JobQueue/Queues/configure(_:)`` applies it only
    /// when it creates the queue; ``JobQueue/Queues/pause(_:)`` and ``JobQueue/Queues/resume(_:)``
    /// change it later.
    public var isPaused: Bool
    /// The least time between two starts; nil for none.
    public var throttle: Throttle?
    /// The most starts per time window; nil for none.
    public var rateLimit: RateLimit?
    /// How waiting jobs' priorities rise; nil (the default) for strict priority.
    public var aging: Aging?
    /// How many jobs with the same ``EnqueueOptions/partitionKey`` may run at once, over every
    /// process ("one sync per customer"); 0 (the default) for no limit. Jobs without a key are
    /// not limited by it.
    public var partitionLimit: Int
    /// Whether keys take turns (``Fairness/byKey``) or jobs go in the queue's order regardless of
    /// their keys (``Fairness/none``, the default). Applies to jobs enqueued from then on.
    public var fairness: Fairness
    /// The least time between two starts of the same partition key (from the previous start or
    /// end), over every process; nil (the default) for none. See ``KeyLimits``.
    public var keyThrottle: Throttle?
    /// The most starts of one partition key per sliding window, over every process; nil (the
    /// default) for none. See ``KeyLimits``.
    public var keyRateLimit: RateLimit?
    /// The limits of some keys (tiers), replacing the queue's ``keyLimits`` for them: by exact key
    /// (`"acme"`) or by prefix (`"premium:*"`); the most specific pattern wins (an exact key, then
    /// the longest prefix). `*` alone is not an override: it names every key, whose limits are
    /// ``keyLimits`` (``subscript(keys:)`` takes both). Stored in the `key_limits` table; change
    /// them at run time with ``JobQueue/Queues/update(_:_:)``, `durableq key-limits` or the
    /// dashboard.
    public var keyOverrides: [String: KeyLimits]

    /// The limits of a key no override names: ``partitionLimit``, ``keyThrottle`` and ``keyRateLimit``.
    public var keyLimits: KeyLimits {
        get { KeyLimits(concurrencyLimit: partitionLimit, throttle: keyThrottle, rateLimit: keyRateLimit) }
        set {
            partitionLimit = newValue.concurrencyLimit
            keyThrottle = newValue.throttle
            keyRateLimit = newValue.rateLimit
        }
    }

    /// The limits of the keys `pattern` names, as `durableq key-limits` and the dashboard name
    /// them: `*` for every key (``keyLimits``; setting nil removes them), else an exact key or a
    /// prefix ending in `*` (an entry of ``keyOverrides``; nil removes it).
    ///
    /// For example: `queue[keys: "*"] = KeyLimits(concurrencyLimit: 2)`,
    /// `queue[keys: "premium:*"] = KeyLimits(concurrencyLimit: 20)`.
    public subscript(keys pattern: String) -> KeyLimits? {
        get { pattern == "*" ? keyLimits : keyOverrides[pattern] }
        set {
            if pattern == "*" {
                keyLimits = newValue ?? KeyLimits()
            } else {
                keyOverrides[pattern] = newValue
            }
        }
    }

    /// Creates a configuration; a queue nobody configured has these defaults.
    public init(
        _ name: String, mode: QueueMode = .fifo, concurrencyLimit: Int = 0, isPaused: Bool = false,
        throttle: Throttle? = nil, rateLimit: RateLimit? = nil, aging: Aging? = nil, partitionLimit: Int = 0,
        fairness: Fairness = .none, keyThrottle: Throttle? = nil, keyRateLimit: RateLimit? = nil,
        keyOverrides: [String: KeyLimits] = [:]
    ) {
        self.fairness = fairness
        self.keyThrottle = keyThrottle
        self.keyRateLimit = keyRateLimit
        self.keyOverrides = keyOverrides
        self.name = name
        self.mode = mode
        self.concurrencyLimit = concurrencyLimit
        self.isPaused = isPaused
        self.throttle = throttle
        self.rateLimit = rateLimit
        self.aging = aging
        self.partitionLimit = partitionLimit
    }

    /// Throws `invalidArgument` for an empty name, a negative limit or interval, an empty rate limit,
    /// or a key pattern that is empty or has a `*` other than at its end.
    package func validate() throws {
        try throttle?.validate()
        try rateLimit?.validate()
        try aging?.validate()
        if name.isEmpty { throw DurableQueueError.invalidArgument("queue name", "must not be empty") }
        if partitionLimit < 0 {
            throw DurableQueueError.invalidArgument("partitionLimit", "\(partitionLimit) is negative; use 0 for none")
        }
        try keyLimits.validate()
        for (pattern, limits) in keyOverrides {
            try KeyPattern.validate(pattern)
            try limits.validate()
        }
        if fairness == .byKey && mode == .lifo {
            throw DurableQueueError.invalidArgument("fairness", "keys take turns on a FIFO queue; queue '\(name)' is LIFO")
        }
        if concurrencyLimit < 0 {
            throw DurableQueueError.invalidArgument("concurrencyLimit", "\(concurrencyLimit) is negative; use 0 for unlimited")
        }
    }
}

extension QueueMode {
    /// Parses `fifo` or `lifo`.
    ///
    /// - Throws: ``DurableQueueError/Code/invalidArgument`` naming the accepted values.
    package init(validating text: String) throws {
        guard let mode = QueueMode(rawValue: text) else {
            throw DurableQueueError.invalidArgument("queue mode", "'\(text)' is neither 'fifo' nor 'lifo'")
        }
        self = mode
    }
}
