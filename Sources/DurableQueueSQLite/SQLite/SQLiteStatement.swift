import CDurableQueueSQLite
import DurableQueueCore

/// A prepared statement of one `Connection`, reused across calls; finalized when released.
final class SQLiteStatement {
    /// The statement's SQL text, for error messages.
    let sql: String
    /// The text after the first statement of the SQL it was compiled from (another statement, or
    /// only spaces and semicolons).
    let remainder: String
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    private let path: String
    private let texts = TextArguments()

    /// Compiles the first statement of `sql`; ``remainder`` is the text after it.
    init(sql: String, connection: OpaquePointer, path: String, persistent: Bool) throws {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var remainder = ""
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(connection, text, -1, flags, &statement, &tail)
            if let tail { remainder = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError(handle: connection, code: code, sql: sql, path: path)
        }
        self.remainder = remainder
        self.sql = sql
        self.handle = statement
        self.connection = connection
        self.path = path
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Runs the statement with `arguments` bound in order, calling `body` for each result row until
    /// it returns false (the remaining rows are never computed).
    ///
    /// The statement is reset and its bindings cleared afterwards, even on error, so it never keeps
    /// a read transaction open.
    func run(_ arguments: [(any SQLiteBindable)?], body: (SQLiteRow) throws -> Bool) throws {
        try run(binding: { binder in
            // By index, so that each argument is bound where it lies: iterating copied every
            // existential out of the array (a thirtieth of an enqueue's instructions).
            for offset in arguments.indices {
                guard let code = arguments[offset]?.bind(to: handle, at: Int32(offset + 1), texts: texts) else { continue }
                guard code == SQLITE_OK else { throw error(code) }
            }
        }, body: body)
    }

    /// Runs the statement with the parameters `bind` binds, calling `body` for each result row
    /// until it returns false. A parameter left unbound is NULL: every parameter is NULL before
    /// the first run and after each (clear_bindings).
    func run(binding bind: (inout ParameterBinder) throws -> Void, body: (SQLiteRow) throws -> Bool) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            texts.clear()  // only now: SQLite read the texts in place until here
        }
        var binder = ParameterBinder(statement: handle, texts: texts)
        try bind(&binder)
        guard binder.failure == SQLITE_OK else { throw error(binder.failure) }
        while true {
            let code = sqlite3_step(handle)
            switch code {
            case SQLITE_ROW: if try !body(SQLiteRow(statement: handle)) { return }
            case SQLITE_DONE: return
            default: throw error(code)
            }
        }
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(handle: connection, code: code, sql: sql, path: path)
    }
}
