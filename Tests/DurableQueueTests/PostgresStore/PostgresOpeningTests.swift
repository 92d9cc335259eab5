import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Opening a PostgreSQL store: schemas, and what a user reads when it fails.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason))) struct PostgresOpeningTests {
    /// A schema named with capitals is created and used as named (PostgreSQL folds unquoted names
    /// to lower case).
    @Test func aSchemaWithCapitalsIsCreatedAndUsedAsNamed() async throws {
        let schema = "Mixed_" + UUID().uuidString.prefix(8).replacingOccurrences(of: "-", with: "")
        let url = "postgres://postgres@127.0.0.1:\(try await TestPostgresServer.port())/postgres?schema=\(schema)&sslmode=disable"
        let store = try await PostgresJobStore(PostgresStorage(url: url))
        _ = try await store.enqueue([job()], now: 0)
        let again = try await PostgresJobStore(PostgresStorage(url: url))
        #expect(try await again.count(JobFilter(states: JobFilter.unfinished)) == 1)
    }

    /// A database that does not exist fails the open at once, with the server's reason, naming
    /// the database (not a file).
    @Test(.timeLimit(.minutes(1))) func aMissingDatabaseFailsAtOnceWithTheServersReason() async throws {
        let url = "postgres://postgres@127.0.0.1:\(try await TestPostgresServer.port())/no_such_database?sslmode=disable"
        let error = await #expect(throws: DurableQueueError.self) { try await PostgresJobStore(PostgresStorage(url: url)) }
        #expect(error?.code == .cannotOpen, "\(String(describing: error))")
        #expect(error?.message.contains(#"database "no_such_database" does not exist"#) == true, "\(String(describing: error))")
        #expect(error?.description.contains("(database postgres://postgres@127.0.0.1") == true, "\(String(describing: error))")
    }
}
