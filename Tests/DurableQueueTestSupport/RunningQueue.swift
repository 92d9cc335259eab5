import DurableQueue
import Logging

/// Opens a queue on a new store (`makeStore` in a new directory; an SQLite file unless given),
/// runs its engine while `body` runs, then stops it.
package func withRunningQueue(
    makeStore: ((TemporaryDirectory) async throws -> any JobStore)? = nil,
    configuration: JobQueue.Configuration = JobQueue.Configuration(pollInterval: .milliseconds(20)),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    register: (JobQueue) -> Void = { _ in }, _ body: (JobQueue) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let queue =
        if let makeStore {
            try JobQueue(store: try await makeStore(directory), configuration: configuration, logger: logger)
        } else {
            try JobQueue(path: directory.path("jobs.sqlite"), configuration: configuration, logger: logger)
        }
    register(queue)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await queue.run() }
        do {
            try await body(queue)
        } catch {
            group.cancelAll()  // or the group would wait for the engine forever
            throw error
        }
        group.cancelAll()
        try await group.waitForAll()
    }
}
