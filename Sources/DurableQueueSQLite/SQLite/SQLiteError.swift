import CDurableQueueSQLite
import DurableQueueCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed SQLite call, with everything needed to say what went wrong and where.
///
/// Carries the SQL text but never the bound values: they may hold user data or secrets. The text
/// shows only in the debug description: the public error that wraps this one already says what was
/// being done and why, in words.
struct SQLiteError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// The extended result code, such as `SQLITE_CONSTRAINT_UNIQUE`.
    let extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`), or the code's generic text.
    let message: String
    /// The statement being run, if any.
    let sql: String?
    /// The database file.
    let path: String
    /// The operating system's error number of the failure behind it (`errno`), if any.
    let systemErrno: Int32
    /// What the connection waited to do when another connection's lock outlasted the busy
    /// timeout, in words ("switch the file to WAL mode"); nil when it is the statement itself.
    var waitingTo: String?

    /// The primary result code (the low byte of the extended code), such as `SQLITE_BUSY`.
    var primaryCode: Int32 { extendedCode & 0xFF }

    /// The extended result code, for the one-line messages users read.
    var description: String { "SQLite error \(extendedCode)" }

    /// Everything: code, SQLite's message, file and statement.
    var debugDescription: String {
        var text = "SQLite error \(extendedCode): \(message) (file \(path))"
        if let sql { text += " while executing `\(sql)`" }
        return text
    }

    /// The error of the last failed call on `handle`.
    init(handle: OpaquePointer?, code: Int32, sql: String?, path: String) {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        // The connection's extended code belongs to its last call; trust it only when it agrees.
        self.extendedCode = (extended & 0xFF) == (code & 0xFF) ? extended : code
        if let handle, let text = sqlite3_errmsg(handle) {
            self.message = String(cString: text)
        } else {
            self.message = String(cString: sqlite3_errstr(code))
        }
        self.sql = sql
        self.path = path
        self.systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
    }

    /// An error of `code` that the operating system's `errno` explains.
    init(code: Int32, message: String, systemErrno: Int32, path: String) {
        self.extendedCode = code
        self.message = message
        self.sql = nil
        self.path = path
        self.systemErrno = systemErrno
    }

    /// Whether the system keeps the file from this process for now: SQLite's `SQLITE_AUTH` (what
    /// Apple's SQLite reports for protected data), or an open or I/O failure with `EPERM` (the
    /// error of a protected file while the device is locked; on Linux, of an immutable file).
    var isProtectedDataUnavailable: Bool {
        primaryCode == SQLITE_AUTH || ((primaryCode == SQLITE_CANTOPEN || primaryCode == SQLITE_IOERR) && systemErrno == EPERM)
    }
}
