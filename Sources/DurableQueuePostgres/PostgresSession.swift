import Logging
import PostgresNIO

/// One connection inside one transaction of the store: runs statements with bound values.
struct PostgresSession {
    let connection: PostgresConnection
    let logger: Logger

    /// The rows `sql` returns, with `values` bound to `$1`, `$2`, …
    @discardableResult
    func rows(_ sql: String, _ values: [(any PostgresValue)?] = []) async throws -> [PostgresResultRow] {
        try await run(sql, values).rows.map(PostgresResultRow.init)
    }

    /// Runs `sql`; returns how many rows it changed (or returned).
    @discardableResult
    func execute(_ sql: String, _ values: [(any PostgresValue)?] = []) async throws -> Int {
        try await run(sql, values).metadata.rows ?? 0
    }

    /// The rows `sql` returns and how many rows it changed (or returned).
    func rowsAndCount(_ sql: String, _ values: [(any PostgresValue)?] = []) async throws -> ([PostgresResultRow], Int) {
        let result = try await run(sql, values)
        return (result.rows.map(PostgresResultRow.init), result.metadata.rows ?? 0)
    }

    /// The first column of the first row, if any and not NULL.
    func int64(_ sql: String, _ values: [(any PostgresValue)?] = []) async throws -> Int64? {
        guard let row = try await rows(sql, values).first else { return nil }
        return try row.optionalInt64(0)
    }

    /// The rows `statement` returns, with `values` bound to `$1`, `$2`, …; the connection parses
    /// and plans it the first time only.
    @discardableResult
    func rows<Statement: PreparedSQL>(_ statement: Statement.Type, _ values: [(any PostgresValue)?] = []) async throws
        -> [PostgresResultRow]
    {
        var rows: [PostgresResultRow] = []
        for try await row in try await connection.execute(Prepared<Statement>(bindings: Self.bindings(values)), logger: logger) {
            rows.append(row)
        }
        return rows
    }

    private func run(_ sql: String, _ values: [(any PostgresValue)?]) async throws -> PostgresQueryResult {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)), logger: logger).get()
    }

    private static func bindings(_ values: [(any PostgresValue)?]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { value.bind(into: &bindings) } else { bindings.appendNull() }
        }
        return bindings
    }
}

/// A statement the store runs on every claim or ending: each connection prepares it once (parses
/// and plans it) and then runs it by name, sparing the server most of its work for short statements.
protocol PreparedSQL {
    /// The prepared statement's name on a connection: short (PostgreSQL cuts names at 63 bytes) and unique.
    static var name: String { get }
    /// The statement, with `$1`, `$2`, … for its values. A parameter's type is taken from the value
    /// it is first run with; one that may first be NULL needs a cast in the SQL (`$3::bigint`).
    static var sql: String { get }
}

/// ``PreparedSQL`` as postgres-nio runs it.
private struct Prepared<Statement: PreparedSQL>: PostgresPreparedStatement {
    static var name: String { Statement.name }
    static var sql: String { Statement.sql }
    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresResultRow { PostgresResultRow(row) }
}
