/// How soon a job runs compared with the others of its queue: higher first.
///
/// Within one priority the queue's ``QueueMode`` decides. Any integer is allowed; the named
/// levels leave room between them.
public struct Priority: RawRepresentable, Hashable, Comparable, Sendable, Codable {
    /// The value stored in `jobs.priority`.
    public let rawValue: Int

    /// Wraps a stored priority.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Work nobody waits for (-8).
    public static let background = Priority(rawValue: -8)
    /// Below the default (-4).
    public static let low = Priority(rawValue: -4)
    /// The default (0).
    public static let normal = Priority(rawValue: 0)
    /// Before everything else (4).
    public static let high = Priority(rawValue: 4)

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
}
