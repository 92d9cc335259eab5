/// The identity of something stored: its row id, never reused. ``JobID`` and ``GroupID`` are the two
/// kinds; they share everything but their type, so one cannot be passed for the other.
public protocol StoredID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible
where RawValue == Int64 {
    /// Wraps a row id.
    init(rawValue: Int64)
}

extension StoredID {
    /// Wraps a row id.
    public init(_ rawValue: Int64) {
        self.init(rawValue: rawValue)
    }

    /// The row id as decimal digits, as `sqlite3` shows it.
    public var description: String { String(rawValue) }

    /// Older ids first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The identity of a job: its row id in the `jobs` table, never reused.
public struct JobID: StoredID {
    /// The row id.
    public let rawValue: Int64

    /// Wraps a row id.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }
}

/// The identity of a sequence or concurrent group: its row id in the `groups` table, never reused.
public struct GroupID: StoredID {
    /// The row id.
    public let rawValue: Int64

    /// Wraps a row id.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }
}
