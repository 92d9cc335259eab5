/// How a queue raises the priority of jobs that wait, so that low-priority work still runs under
/// a steady stream of higher-priority work. Without it (the default) priority is strict: a
/// `background` job waits as long as any higher job is pending.
///
/// Each pending job's priority rises by one for every ``every`` it waits (since it became pending
/// or last rose), up to ``upTo``; among jobs of equal priority the older goes first, so an aged job
/// soon runs. Every process on the file (or database) ages the same jobs once: a rise is one
/// transaction with a history row (`aged: priority -4 → -3`).
///
/// For example, a `background` (-8) job reaches `normal` (0) after 8 minutes:
/// ```swift
/// try await queue.queues.configure(QueueConfiguration("reports", aging: Aging(every: .minutes(1), upTo: .normal)))
/// ```
public struct Aging: Sendable, Hashable {
    /// How long a job waits before its priority rises by one; at least a second.
    public var every: Duration
    /// The highest priority aging gives; a job already there or above is left as it is.
    public var upTo: Priority

    /// - Parameters:
    ///   - every: How long a job waits before its priority rises by one; at least a second.
    ///   - upTo: The highest priority aging gives (default `.high`).
    public init(every: Duration, upTo: Priority = .high) {
        self.every = every
        self.upTo = upTo
    }

    /// Throws `invalidArgument` for an interval under a second (engines look once a second).
    func validate() throws {
        if every.milliseconds < 1_000 {
            throw DurableQueueError.invalidArgument("aging interval", "\(every) is shorter than a second")
        }
    }
}
