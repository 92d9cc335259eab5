import DurableQueueTestSupport
import Foundation
import Logging
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Logs from its context's logger.
private struct Greeting: Job {
    static let name = "greeting"
    func run(_ input: String, context: JobContext) async throws -> String {
        context.logger.info("hello \(input)")
        return input
    }
}

@Suite(.timeLimit(.minutes(1))) struct LoggingTests {
    @Test func aHandlersLogsCarryItsJobQueueKindAndAttempt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = LogRecorder()
        let queue = try await StoreBackend.sqlite.queue(in: directory, logger: log.logger())
        queue.register(Greeting())
        let handle = try await queue.enqueue(Greeting.self, "ada", options: EnqueueOptions(queue: "mail"))
        #expect(try await queue.runDueJobs() == 1)
        #expect(try await handle.result() == "ada")
        let line = try #require(log.text.split(separator: "\n").first { $0.hasPrefix("info hello ada") })
        #expect(line == "info hello ada job.attempt=1 job.id=\(handle.id) job.kind=greeting queue.name=mail")
    }
}
