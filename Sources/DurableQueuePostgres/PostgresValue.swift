import NIOCore
import PostgresNIO

/// A Swift value bound to a `$n` parameter of a statement: the stores never put a value into SQL text.
protocol PostgresValue {
    /// Appends the value to the statement's parameters.
    func bind(into bindings: inout PostgresBindings)
}

extension Int64: PostgresValue {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

extension Int: PostgresValue {
    func bind(into bindings: inout PostgresBindings) { bindings.append(Int64(self)) }
}

extension Double: PostgresValue {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

extension String: PostgresValue {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

/// Flags are `integer` columns holding 0 or 1, as in the SQLite file.
extension Bool: PostgresValue {
    func bind(into bindings: inout PostgresBindings) { bindings.append(Int64(self ? 1 : 0)) }
}

/// Bytes for a `bytea` column.
struct PostgresBytes: PostgresValue {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func bind(into bindings: inout PostgresBindings) { bindings.append(ByteBuffer(bytes: bytes)) }
}

/// A list of texts or numbers, for `= ANY($n)` and `unnest($n)`.
extension Array: PostgresValue where Element: PostgresArrayEncodable & PostgresNonThrowingEncodable {
    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}

/// A row of a result, read by column position.
struct PostgresResultRow {
    let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) { cells = row.makeRandomAccess() }

    func int64(_ column: Int) throws -> Int64 { try cells[column].decode(Int64.self) }
    func int(_ column: Int) throws -> Int { Int(try int64(column)) }
    func bool(_ column: Int) throws -> Bool { try int64(column) != 0 }
    func string(_ column: Int) throws -> String { try cells[column].decode(String.self) }
    func optionalInt64(_ column: Int) throws -> Int64? { try cells[column].decode(Int64?.self) }
    func optionalInt(_ column: Int) throws -> Int? { try optionalInt64(column).map { Int($0) } }
    func optionalString(_ column: Int) throws -> String? { try cells[column].decode(String?.self) }
    func optionalDouble(_ column: Int) throws -> Double? { try cells[column].decode(Double?.self) }
    func int64Array(_ column: Int) throws -> [Int64] { try cells[column].decode([Int64].self) }
    func stringArray(_ column: Int) throws -> [String] { try cells[column].decode([String].self) }
    func optionalBytes(_ column: Int) throws -> [UInt8]? {
        try cells[column].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
    }
}
