/// The least time a queue keeps between two job starts, to obey a third party's rate limit.
///
/// The first job on an idle queue starts at once; each later start waits until the interval after
/// the previous job has passed. The time the next start is allowed is stored in the file
/// (`queues.next_start_at`), so a restart, or another process, keeps the pace.
///
/// For example, at most one request every half second, with a pause after each job's end:
/// ```swift
/// try await queue.queues.configure(QueueConfiguration("api", throttle: Throttle(.milliseconds(500), measuredFrom: .end)))
/// ```
public struct Throttle: Sendable, Hashable {
    /// From which moment of the previous job the interval runs.
    public enum Measurement: String, Sendable, Hashable, Codable, CaseIterable {
        /// From the previous job's start: a long job adds no extra wait. The default.
        case start
        /// From the previous job's end: a gap after each job. Jobs of the queue then run one at a time.
        case end
    }

    /// Which waiting jobs a changed queue interval applies to.
    public enum Mutability: String, Sendable, Hashable, Codable, CaseIterable {
        /// Every waiting job takes the new interval, even one enqueued with its own. The default.
        case all
        /// Only waiting jobs enqueued without their own interval take the new one.
        case defaultOnly
        /// Waiting jobs keep the interval that was in force when they were enqueued.
        case none
    }

    /// The least time between the previous job's start (or end) and the next start.
    public var interval: Duration
    /// Whether ``interval`` runs from the previous job's start or its end.
    public var measuredFrom: Measurement
    /// Which waiting jobs take a changed ``interval``.
    public var mutability: Mutability

    /// Creates a throttle of `interval`, measured from the previous start unless told otherwise.
    public init(_ interval: Duration, measuredFrom: Measurement = .start, mutability: Mutability = .all) {
        self.interval = interval
        self.measuredFrom = measuredFrom
        self.mutability = mutability
    }

    /// Throws `invalidArgument` for a negative interval.
    func validate() throws {
        if interval < .zero { throw DurableQueueError.invalidArgument("throttle interval", "\(interval) is negative") }
    }
}
