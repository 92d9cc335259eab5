import CDurableQueueSQLite
import DurableQueueCore

/// Binds a statement's parameters in order, straight from typed values: for the statements of
/// many parameters that run most (a job's insert), where an array of `any SQLiteBindable` cost
/// boxing, copying and destroying each argument (a tenth of a batch's instructions).
///
/// A nil is not bound: every parameter is NULL before a run (see ``Statement/run(binding:body:)``).
struct ParameterBinder {
    private let statement: OpaquePointer
    private let texts: TextArguments
    /// The parameter bound last (1-based).
    private var index: Int32 = 0
    /// The first error SQLite reported, if any.
    private(set) var failure: Int32 = SQLITE_OK

    init(statement: OpaquePointer, texts: TextArguments) {
        self.statement = statement
        self.texts = texts
    }

    /// Binds the next parameter to `value` (NULL for nil).
    mutating func bind(_ value: Int64?) {
        index += 1
        guard let value else { return }
        record(sqlite3_bind_int64(statement, index, value))
    }

    /// Binds the next parameter to `value` (NULL for nil).
    mutating func bind(_ value: Int?) {
        bind(value.map(Int64.init))
    }

    /// Binds the next parameter to 1 or 0.
    mutating func bind(_ value: Bool) {
        bind(Int64(value ? 1 : 0))
    }

    /// Binds the next parameter to `value` (NULL for nil), copied into the statement's texts.
    mutating func bind(_ value: String?) {
        index += 1
        guard let value else { return }
        record(value.bind(to: statement, at: index, texts: texts))
    }

    /// Binds the next parameter to `value`, which lives as long as the program: SQLite reads it in
    /// place, without the copy a `String` takes.
    mutating func bind(_ value: StaticString) {
        index += 1
        record(value.withUTF8Buffer { bytes in
            // A static string is followed by a zero byte, and none is inside a text constant here.
            sqlite3_bind_text(statement, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self), -1, sqliteStatic)
        })
    }

    private mutating func record(_ code: Int32) {
        if failure == SQLITE_OK && code != SQLITE_OK { failure = code }
    }
}
