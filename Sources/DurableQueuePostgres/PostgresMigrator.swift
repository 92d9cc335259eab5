import DurableQueue
import DurableQueuePostgresMigrations
import Foundation
import Logging
import PostgresNIO

/// Brings a schema to the newest version: the numbered scripts of `Migrations/postgres/`, each
/// applied once in its own transaction and recorded in `schema_migrations`. Nodes that start at
/// once take turns through an advisory lock; a script is never edited once released.
enum PostgresMigrator {
    /// The scripts, by version (`Migrations/postgres/`).
    static let migrations = PostgresSchemaMigrations.all

    /// The newest version this library knows.
    static var newestVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// The statements of a script, split at each `;` that ends a line outside a `$$` body;
    /// comments are left to the server.
    static func statements(of script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inBody = false
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            let code = line.split(separator: "--", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if code.components(separatedBy: "$$").count % 2 == 0 { inBody.toggle() }
            if !inBody, code.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { statements.append(current) }
        return statements.filter { statement in
            statement.split(separator: "\n").contains { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
    }

    /// `statements` as one: a `DO` block that executes each in turn, so that a migration costs one
    /// round trip to the server, not one per statement (opening a store on a distant server, or
    /// many at once, waited on dozens of them).
    static func block(_ statements: [String]) -> String {
        let body = statements.enumerated().map { index, statement in
            let tag = "$durablequeue_statement_\(index)$"
            precondition(!statement.contains(tag), "a migration statement contains \(tag)")
            var text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasSuffix(";") { text.removeLast() }
            return "EXECUTE \(tag)\n\(text)\n\(tag);"
        }
        return "DO $durablequeue_migration$ BEGIN\n" + body.joined(separator: "\n") + "\nEND $durablequeue_migration$"
    }

    static func migrate(client: PostgresClient, schema: String, logger: Logger) async throws {
        try await client.withConnection { connection in
            let session = PostgresSession(connection: connection, logger: logger)
            try await session.execute("BEGIN")
            do {
                try await session.execute("SELECT pg_advisory_xact_lock(hashtext('durablequeue-migrations:' || $1))", [schema])
                // The schema name was checked to be a plain identifier: it cannot carry SQL.
                try await session.execute("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")
                try await session.execute(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version    integer NOT NULL PRIMARY KEY,
                        name       text    NOT NULL,
                        applied_at bigint  NOT NULL
                    )
                    """)
                let current = try await session.int64("SELECT max(version) FROM schema_migrations") ?? 0
                if current > newestVersion {
                    throw DurableQueueError(
                        .schemaTooNew,
                        "the schema '\(schema)' is at version \(current), newer than this library's \(newestVersion): update the library")
                }
                for migration in migrations where migration.version > current {
                    logger.info("migrating schema '\(schema)' to version \(migration.version) (\(migration.name))")
                    try await session.execute(block(statements(of: migration.sql)))
                    try await session.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now_ms())",
                        [migration.version, migration.name])
                }
                try await session.execute("COMMIT")
            } catch {
                _ = try? await session.execute("ROLLBACK")
                throw error
            }
        }
    }
}
