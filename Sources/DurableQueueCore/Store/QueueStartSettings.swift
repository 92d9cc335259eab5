/// A queue's settings as a claim reads them, in any store: what decides how many of its jobs may
/// start now.
package struct QueueStartSettings: Sendable, Hashable {
    package var name: String
    /// Jobs of the queue running at once over every process; 0: no limit.
    package var concurrencyLimit: Int
    package var suspended: Bool
    /// Whether throttle intervals run from a job's end (the queue then runs one job at a time).
    package var measuredFromEnd: Bool
    /// The rate limit's starts per window; 0: none.
    package var rateCount: Int
    package var rateWindow: Int64
    /// The earliest time the next job may start (throttle, rate limit).
    package var nextStart: Int64
    package var throttleInterval: Int64
    /// The most running jobs of one partition key; 0: no limit.
    package var partitionLimit: Int
    /// Whether keys take turns (``Fairness/byKey``): the claim moves the queue's virtual time.
    package var fair: Bool
    /// The throttle of each key; nil: none.
    package var keyThrottle: Throttle?
    /// The rate limit of each key; nil: none.
    package var keyRateLimit: RateLimit?
    /// Whether some keys have limits of their own (rows in `key_limits`): the claim reads them.
    package var hasKeyOverrides: Bool

    package init(
        name: String, concurrencyLimit: Int, suspended: Bool, measuredFromEnd: Bool, rateCount: Int, rateWindow: Int64,
        nextStart: Int64, throttleInterval: Int64, partitionLimit: Int, fair: Bool = false, keyThrottle: Throttle? = nil,
        keyRateLimit: RateLimit? = nil, hasKeyOverrides: Bool = false
    ) {
        self.fair = fair
        self.keyThrottle = keyThrottle
        self.keyRateLimit = keyRateLimit
        self.hasKeyOverrides = hasKeyOverrides
        self.name = name
        self.concurrencyLimit = concurrencyLimit
        self.suspended = suspended
        self.measuredFromEnd = measuredFromEnd
        self.rateCount = rateCount
        self.rateWindow = rateWindow
        self.nextStart = nextStart
        self.throttleInterval = throttleInterval
        self.partitionLimit = partitionLimit
    }

    /// The limits of a key no override names.
    package var keyLimits: KeyLimits {
        KeyLimits(concurrencyLimit: partitionLimit, throttle: keyThrottle, rateLimit: keyRateLimit)
    }

    /// Whether starts must be counted under the queue's lock: a limit (of the queue or of its
    /// keys), a throttle or a rate limit.
    package var isLimited: Bool {
        concurrencyLimit > 0 || measuredFromEnd || rateCount > 0 || throttleInterval > 0 || nextStart > 0
            || keyLimits.isLimiting || hasKeyOverrides
    }
}

// MARK: - The rule of starts, which both stores apply

extension QueueStartSettings {
    /// Whether any job of the queue may start at `now`: it is not suspended and its next allowed
    /// start (throttle, rate limit) has come.
    package func mayStart(at now: Int64) -> Bool {
        !suspended && nextStart <= now
    }

    /// The most jobs of the queue running at once over every process: 1 when throttled from a
    /// job's end, else its concurrency limit; 0: no limit.
    package var runningLimit: Int { measuredFromEnd ? 1 : concurrencyLimit }

    /// How many of `wanted` jobs may start now, with `running` of the queue's jobs running (read
    /// only when ``runningLimit`` is set) and `recentStarts` counted in the rate limit's current
    /// window (read only when there is a rate limit); never negative.
    package func slots(wanted: Int, running: Int, recentStarts: Int) -> Int {
        var slots = wanted
        if runningLimit > 0 { slots = min(slots, runningLimit - running) }
        if rateCount > 0 { slots = min(slots, rateCount - recentStarts) }
        return max(0, slots)
    }

    /// The queue's next allowed start after jobs with throttle intervals `intervals` (ms) started
    /// at `now`: past the longest interval unless intervals run from a job's end, and one window
    /// after the rate limit's `rateCount`-th most recent start (`countedStart`, read once these
    /// starts are recorded; nil when fewer are in the window). Nil when nothing postpones it.
    package func nextStart(afterStartsAt now: Int64, intervals: [Int64], countedStart: Int64?) -> Int64? {
        var next: Int64 = 0
        if !measuredFromEnd, let interval = intervals.max(), interval > 0 { next = now + interval }
        if rateCount > 0, let countedStart { next = max(next, countedStart + rateWindow) }
        return next > now ? next : nil
    }
}

