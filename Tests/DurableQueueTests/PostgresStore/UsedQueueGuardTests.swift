import DurableQueue
import DurableQueueTestSupport
import Foundation
import Testing

/// `jobs.queue` has no foreign key on PostgreSQL (schema 24: its check locked the queue's row for
/// every job inserted); triggers refuse what the key refused, a queue with jobs deleted or renamed.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct UsedQueueGuardTests {
    @Test func aQueueWithJobsCannotBeDeletedOrRenamedAndAnUnusedOneCan() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await StoreBackend.postgres.make(directory)
        _ = try await store.add(job("mail"))
        _ = try await store.add(job("sms"))
        let schema = TestPostgresServer.schema(for: directory)

        for change in ["DELETE FROM queues WHERE name = 'mail'", "UPDATE queues SET name = 'post' WHERE name = 'mail'",
                       "DELETE FROM queues"] {
            await #expect(throws: (any Error).self, "\(change)") {
                try await TestPostgresServer.psql("SET search_path = :\"schema\";\n\(change);", variables: ["schema": schema])
            }
        }
        let kept = try await TestPostgresServer.psql(
            """
            SET search_path = :"schema";
            UPDATE queues SET suspended = 1 WHERE name = 'mail';
            DELETE FROM jobs WHERE queue = 'sms';
            DELETE FROM queues WHERE name = 'sms';
            SELECT string_agg(name, ',' ORDER BY name) FROM queues;
            """, variables: ["schema": schema])
        #expect(kept == "mail", "\(kept)")
    }
}
