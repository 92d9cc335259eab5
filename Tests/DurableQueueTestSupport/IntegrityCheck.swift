import CDurableQueueSQLite

/// What `PRAGMA integrity_check` says of the SQLite file at `path`: "ok" for an intact file, else
/// its findings, one a line (or why the file could not be opened or read). Opened on a connection
/// of its own through the platform's VFS, which replays a log a crash left.
package func integrityCheck(ofSQLiteFileAt path: String) -> String {
    var connection: OpaquePointer?
    defer { sqlite3_close_v2(connection) }
    guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
        return "cannot open: " + String(cString: sqlite3_errmsg(connection))
    }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_prepare_v2(connection, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
        return "cannot read: " + String(cString: sqlite3_errmsg(connection))
    }
    var findings: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        findings.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
    }
    return findings.isEmpty ? "cannot read: " + String(cString: sqlite3_errmsg(connection)) : findings.joined(separator: "\n")
}
