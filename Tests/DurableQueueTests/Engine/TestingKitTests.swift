import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Sends nothing: returns the address, once per attempt, failing its first `failures` attempts.
struct SendWelcome: Job {
    struct Input: Codable, Sendable, Equatable {
        var address: String
        var failures = 0
    }
    static let name = "send-welcome"
    func run(_ input: Input, context: JobContext) async throws -> String {
        if context.attempt <= input.failures { throw TestFailure() }
        return input.address
    }
}

/// What the test kit gives a user: a manual clock, due jobs run in the foreground, enqueued jobs
/// to assert on.
@Suite struct TestingKitTests {
    @Test(arguments: StoreBackend.all) func dueJobsRunInOrderAndRetriesWaitForTheClock(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(timeSource: clock))
        queue.register(SendWelcome())
        let retrying = EnqueueOptions(retry: RetryPolicy(maxAttempts: 3, backoff: .constant(.seconds(60))))
        let first = try await queue.enqueue(SendWelcome.self, .init(address: "ada@example.com"))
        let flaky = try await queue.enqueue(SendWelcome.self, .init(address: "bob@example.com", failures: 1), options: retrying)
        let later = try await queue.enqueue(SendWelcome.self, .init(address: "cy@example.com"), options: .init(delay: .seconds(3600)))

        #expect(try await queue.enqueuedJobs(SendWelcome.self).map(\.input.address) == ["ada@example.com", "bob@example.com", "cy@example.com"])
        // Both due jobs run; the flaky one's retry waits for its backoff, the later one for its time.
        #expect(try await queue.runDueJobs() == 2)
        #expect(try await first.state() == .succeeded)
        let waiting = try await queue.enqueuedJobs(SendWelcome.self)
        #expect(waiting.map(\.id) == [flaky.id, later.id] && waiting.map(\.state) == [.scheduled, .scheduled])
        #expect(try await queue.runDueJobs() == 0)
        clock.advance(by: .seconds(60))
        #expect(try await queue.runDueJobs() == 1)
        #expect(try await flaky.result() == "bob@example.com")
        clock.advance(by: .seconds(3600))
        #expect(try await queue.runDueJobs(limit: 5) == 1)
        #expect(try await later.result() == "cy@example.com")
        #expect(try await queue.enqueuedJobs(SendWelcome.self).isEmpty)
        #expect(try await queue.enqueuedJobs(SendWelcome.self, states: [.succeeded]).count == 3)
    }

    @Test(arguments: StoreBackend.all) func runningDueJobsWhileTheEngineRunsIsRefused(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend) { queue in
            try await eventually("the engine runs") { queue.engine.state.phase == .running }
            let error = await #expect(throws: DurableQueueError.self) { try await queue.runDueJobs() }
            #expect(error?.code == .invalidArgument)
        }
    }
}
