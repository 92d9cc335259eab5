/// The identity of a sequence or concurrent group: its row id in the `groups` table, never reused.
public struct GroupID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The row id.
    public let rawValue: Int64

    /// Wraps a row id.
    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// Wraps a row id.
    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// The row id as decimal digits, as `sqlite3` shows it.
    public var description: String { String(rawValue) }

    public static func < (lhs: GroupID, rhs: GroupID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
