import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Reading a queue's settings, replacing them, and changing only some of them.
@Suite struct QueueSettingsTests {
    private func withQueue(_ backend: StoreBackend, _ body: (JobQueue) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await body(try await backend.queue(in: directory))
    }

    @Test(arguments: StoreBackend.all) func configureReplacesTheSettingsButNeverTheSuspension(_ backend: StoreBackend) async throws {
        try await withQueue(backend) { queue in
            #expect(try await queue.queues.configuration(of: "api") == nil)
            try await queue.queues.configure(QueueConfiguration("api", concurrencyLimit: 1, isPaused: true))
            #expect(try await queue.queues.configuration(of: "api") == QueueConfiguration("api", concurrencyLimit: 1, isPaused: true))
            try await queue.queues.configure(QueueConfiguration("api", throttle: Throttle(.seconds(1))))
            // Still suspended; the limit, not given, is back to its default.
            #expect(
                try await queue.queues.configuration(of: "api")
                    == QueueConfiguration("api", concurrencyLimit: 0, isPaused: true, throttle: Throttle(.seconds(1))))
            try await queue.queues.resume("api")
            try await queue.queues.configure(QueueConfiguration("api", isPaused: true))
            #expect(try await queue.queues.configuration(of: "api")?.isPaused == false)
        }
    }

    @Test(arguments: StoreBackend.all) func anUpdateChangesOnlyWhatItSets(_ backend: StoreBackend) async throws {
        try await withQueue(backend) { queue in
            try await queue.queues.configure(QueueConfiguration("api", mode: .lifo, concurrencyLimit: 1, isPaused: true))
            let updated = try await queue.queues.update("api") { $0.throttle = Throttle(.milliseconds(500)) }
            let expected = QueueConfiguration("api", mode: .lifo, concurrencyLimit: 1, isPaused: true, throttle: Throttle(.milliseconds(500)))
            #expect(updated == expected)
            #expect(try await queue.queues.configuration(of: "api") == expected)
            try await queue.queues.update("api") { $0.isPaused = false }
            #expect(try await queue.queues.configuration(of: "api")?.isPaused == false)
            // A queue nobody configured starts from the defaults.
            #expect(try await queue.queues.update("fresh") { $0.concurrencyLimit = 2 } == QueueConfiguration("fresh", concurrencyLimit: 2))
        }
    }

    @Test(arguments: StoreBackend.all) func aBadUpdateChangesNothing(_ backend: StoreBackend) async throws {
        try await withQueue(backend) { queue in
            try await queue.queues.configure(QueueConfiguration("api", concurrencyLimit: 1))
            let changes: [@Sendable (inout QueueConfiguration) -> Void] = [{ $0.name = "other" }, { $0.concurrencyLimit = -1 }]
            for change in changes {
                let error = await #expect(throws: DurableQueueError.self) { try await queue.queues.update("api", change) }
                #expect(error?.code == .invalidArgument)
            }
            #expect(try await queue.queues.configuration(of: "api") == QueueConfiguration("api", concurrencyLimit: 1))
            #expect(try await queue.queues.configuration(of: "other") == nil)
        }
    }
}
