import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Enqueues follow-ups from its handler: a plain job, one with its own priority, one with options
/// that name no priority, and a sequence of two steps (the second with its own priority) inside a
/// group. Returns nothing; the test reads the priorities from the file.
struct Spawner: Job {
    static let name = "spawner"
    func run(_ input: String, context: JobContext) async throws -> String {
        try await context.enqueue(Echo.self, "plain")
        try await context.enqueue(Echo.self, "own", options: EnqueueOptions(priority: .low))
        try await context.enqueue(Echo.self, "options", options: EnqueueOptions(queue: "other"))
        try await context.enqueue(
            .group([
                .sequence([.job(Echo.self, "step"), .job(Echo.self, "step-own", options: EnqueueOptions(priority: .background))]),
                .group([.job(Echo.self, "inner")], priority: .low),
            ]))
        return "\(context.priority)"
    }
}

@Suite(.timeLimit(.minutes(1))) struct PriorityInheritanceTests {
    private func priorities(_ queue: JobQueue) async throws -> [String: Priority] {
        var found: [String: Priority] = [:]
        for record in try await queue.store.jobs(JobFilter(limit: 100)) {
            found[try JSONDecoder().decode(String.self, from: Data(record.input.utf8))] = record.priority
        }
        return found
    }

    @Test(arguments: StoreBackend.all) func jobsEnqueuedByAHandlerInheritItsPriorityUnlessTheySetTheirOwn(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Spawner()); $0.register(Echo()) }) { queue in
            let parent = try await queue.enqueue(Spawner.self, "parent", options: EnqueueOptions(priority: .high))
            #expect(try await parent.result() == "\(Priority.high)")
            let found = try await priorities(queue)
            #expect(found["plain"] == .high && found["options"] == .high && found["step"] == .high)
            #expect(found["own"] == .low && found["step-own"] == .background && found["inner"] == .low)
        }
    }

    @Test(arguments: StoreBackend.all) func aSequenceOrGroupGivesItsPriorityToStepsWithoutTheirOwn(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        _ = try await queue.enqueue(.sequence([.job(Echo.self, "a"), .job(Echo.self, "b", options: EnqueueOptions(priority: .low))], priority: .high))
        _ = try await queue.enqueue(.group([.job(Echo.self, "c")]))
        _ = try await queue.enqueue(Echo.self, "d")
        let found = try await priorities(queue)
        #expect(found == ["a": .high, "b": .low, "c": .normal, "d": .normal])
    }
}
