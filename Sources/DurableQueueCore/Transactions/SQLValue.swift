/// A value an application's SQL statement binds or returns inside ``JobQueue/transaction(_:)``:
/// the five kinds of value SQLite knows, which PostgreSQL values map to and from.
///
/// Literals work: `["ord-17", 4200, 12.5, nil]`.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The value as an integer, if it is one.
    public var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The value as text, if it is text.
    public var text: String? {
        if case .text(let value) = self { value } else { nil }
    }

    /// The value as a floating-point number, if it is a number.
    public var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The value as bytes, if it is a blob.
    public var blob: [UInt8]? {
        if case .blob(let value) = self { value } else { nil }
    }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral,
    ExpressibleByBooleanLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
    /// `true` is 1 and `false` 0, as SQLite stores booleans.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
