import DurableQueuePostgresMigrations
import DurableQueueTestSupport
import Foundation
import Testing

/// PostgreSQL's scripts live beside SQLite's under `Migrations/`, and every one is listed, in order.
@Suite struct PostgresMigrationFilesTests {
    @Test func everyScriptOfMigrationsPostgresIsListedInOrderWithoutGaps() throws {
        let folder = packageRoot.appendingPathComponent("Migrations/postgres")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) }.sorted()
        let listed = PostgresSchemaMigrations.all
        #expect(files == listed.map { String(format: "%04d_", $0.version) + $0.name })
        #expect(listed.map(\.version) == Array(1...listed.count))
        for migration in listed {
            let text = try String(contentsOf: folder.appendingPathComponent(String(format: "%04d_", migration.version) + migration.name + ".sql"), encoding: .utf8)
            #expect(migration.sql == text, "\(migration.name) is embedded as written")
        }
    }
}
