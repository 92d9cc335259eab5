import CDurableQueueSQLite
import DurableQueueCore
import Foundation

/// A Swift value that can be bound to a statement parameter.
protocol SQLiteBindable {
    /// Binds the value to parameter `index` (1-based) of `statement`, returning SQLite's result code.
    /// A text is copied into `texts`, which keeps it until the statement's bindings are cleared.
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32
}

/// Tells SQLite to copy bound text and blobs before the call returns (the C macro Swift doesn't import).
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// Tells SQLite that bound text stays where it is until the binding is cleared: it reads it in place.
let sqliteStatic: sqlite3_destructor_type? = nil

extension Int64: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        sqlite3_bind_int64(statement, index, self)
    }
}

extension Int: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension Bool: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }
}

extension Double: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }
}

extension String: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        var text = self
        return text.withUTF8 { bytes in
            // An empty string may have no buffer at all: SQLite copies "" then.
            guard !bytes.isEmpty else { return sqlite3_bind_text(statement, index, "", 0, sqliteTransient) }
            let copy = texts.store(UnsafeRawBufferPointer(bytes)).assumingMemoryBound(to: CChar.self)
            // Without a zero byte inside, the length is left to SQLite (-1): it then knows the text
            // ends with one, and a function that needs it so (length(), in the jobs table's CHECK on
            // kind) does not copy the text first.
            let length = memchr(bytes.baseAddress!, 0, bytes.count) == nil ? -1 : Int32(bytes.count)
            return sqlite3_bind_text(statement, index, copy, length, sqliteStatic)
        }
    }
}

extension [UInt8]: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        withUnsafeBytes { bytes in
            // A nil pointer would bind NULL, so an empty blob is bound as a zero-length blob.
            guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(statement, index, 0) }
            return sqlite3_bind_blob(statement, index, base, Int32(bytes.count), sqliteTransient)
        }
    }
}

/// The current result row of a stepping statement; valid only inside the closure that receives it.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    init(statement: OpaquePointer) {
        self.statement = statement
    }

    /// Whether column `index` (0-based) is NULL.
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// Column `index` as an integer (0 for NULL).
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// Column `index` as an integer, or nil for NULL.
    func optionalInt64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : int64(index)
    }

    /// Column `index` as an `Int`, or nil for NULL.
    func optionalInt(_ index: Int32) -> Int? {
        optionalInt64(index).map { Int($0) }
    }

    /// Column `index` as a `Double`, or nil for NULL.
    func optionalDouble(_ index: Int32) -> Double? {
        isNull(index) ? nil : sqlite3_column_double(statement, index)
    }

    /// Column `index` as text ("" for NULL).
    func string(_ index: Int32) -> String {
        optionalString(index) ?? ""
    }

    /// Column `index` as text, or nil for NULL.
    func optionalString(_ index: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// How many columns the row has.
    var columnCount: Int32 { sqlite3_column_count(statement) }

    /// Column `index` as the value it is stored as.
    func value(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(statement, index))
        case SQLITE_BLOB: .blob(optionalBlob(index) ?? [])
        default: .text(string(index))
        }
    }

    /// Column `index` as bytes, or nil for NULL.
    func optionalBlob(_ index: Int32) -> [UInt8]? {
        if isNull(index) { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

extension SQLValue: SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32, texts: TextArguments) -> Int32 {
        switch self {
        case .null: sqlite3_bind_null(statement, index)
        case .integer(let value): sqlite3_bind_int64(statement, index, value)
        case .real(let value): sqlite3_bind_double(statement, index, value)
        case .text(let value): sqlite3_bind_text(statement, index, value, -1, sqliteTransient)
        case .blob(let value):
            value.withUnsafeBytes { bytes in sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient) }
        }
    }
}
