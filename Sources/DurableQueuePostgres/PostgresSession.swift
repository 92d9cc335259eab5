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

    /// The first column of the first row, if any and not NULL.
    func int64(_ sql: String, _ values: [(any PostgresValue)?] = []) async throws -> Int64? {
        guard let row = try await rows(sql, values).first else { return nil }
        return try row.optionalInt64(0)
    }

    private func run(_ sql: String, _ values: [(any PostgresValue)?]) async throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { value.bind(into: &bindings) } else { bindings.appendNull() }
        }
        return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).get()
    }
}
