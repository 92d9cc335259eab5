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
    /// The position of this row's column 0 among `cells`.
    private let first: Int

    init(_ row: PostgresRow) {
        cells = row.makeRandomAccess()
        first = 0
    }

    private init(cells: PostgresRandomAccessRow, first: Int) {
        self.cells = cells
        self.first = first
    }

    /// The columns from `column` on, read as a row of their own (a statement that returns the rows
    /// of two queries side by side).
    func columns(from column: Int) -> PostgresResultRow { PostgresResultRow(cells: cells, first: first + column) }

    /// Whether the value in `column` is NULL.
    func isNull(_ column: Int) -> Bool { cells[first + column].bytes == nil }

    func int64(_ column: Int) throws -> Int64 { try cells[first + column].decode(Int64.self) }
    func int(_ column: Int) throws -> Int { Int(try int64(column)) }
    func bool(_ column: Int) throws -> Bool { try int64(column) != 0 }
    func string(_ column: Int) throws -> String { try cells[first + column].decode(String.self) }
    func optionalInt64(_ column: Int) throws -> Int64? { try cells[first + column].decode(Int64?.self) }
    func optionalInt(_ column: Int) throws -> Int? { try optionalInt64(column).map { Int($0) } }
    func optionalString(_ column: Int) throws -> String? { try cells[first + column].decode(String?.self) }
    func optionalDouble(_ column: Int) throws -> Double? { try cells[first + column].decode(Double?.self) }
    func int64Array(_ column: Int) throws -> [Int64] { try cells[first + column].decode([Int64].self) }
    func stringArray(_ column: Int) throws -> [String] { try cells[first + column].decode([String].self) }
    func optionalBytes(_ column: Int) throws -> [UInt8]? {
        try cells[first + column].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
    }
}

/// A list with missing values, for `unnest($n)` of a nullable column: postgres-nio's arrays hold no
/// NULL element. Written in PostgreSQL's binary array format, a missing value as length -1.
struct PostgresNullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresValue,
    PostgresNonThrowingEncodable
{
    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (none for an empty list), whether any element is NULL, the elements' type.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        // The one dimension's length and lower bound, then each element with its length.
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - lengthIndex - 4), at: lengthIndex)
        }
    }

    func bind(into bindings: inout PostgresBindings) { bindings.append(self) }
}
