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

    package init(
        name: String, concurrencyLimit: Int, suspended: Bool, measuredFromEnd: Bool, rateCount: Int, rateWindow: Int64,
        nextStart: Int64, throttleInterval: Int64, partitionLimit: Int
    ) {
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

    /// Whether starts must be counted under the queue's lock: a limit (of the queue or of a
    /// partition), a throttle or a rate limit.
    package var isLimited: Bool {
        concurrencyLimit > 0 || measuredFromEnd || rateCount > 0 || throttleInterval > 0 || nextStart > 0 || partitionLimit > 0
    }
}
