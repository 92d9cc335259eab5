import DurableQueueTestSupport
import Foundation
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueuePostgres

/// Fails the first attempt of each job, then returns its input: every job ends once as a retry
/// (scheduled after its backoff, promoted again by a claim) and once for good.
private struct FailsOnce: Job {
    static let name = "fails-once"
    func run(_ input: Int, context: JobContext) async throws -> Int {
        guard context.attempt > 1 else { throw TestFailure() }
        return input
    }
}

/// The store never locks a row that a foreign key references in a mode a foreign-key check waits
/// for: a claim holding its queue's advisory lock checked a job's group while an ending held that
/// group's row and waited for the same advisory lock, and the server broke the deadlock.
@Suite(
    .enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .serialized,
    .timeLimit(.minutes(3)))
struct ForeignKeyLockTests {
    /// Jobs retried with a short backoff, on a queue with a concurrency limit (claims take its
    /// advisory lock), in groups and a sequence.
    private static let retry = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(2)))

    private static func enqueueGroups(_ queue: JobQueue, count: Int, children: Int) async throws -> [GroupHandle] {
        var groups: [GroupHandle] = []
        let options = EnqueueOptions(queue: "limited", retry: retry)
        for index in 0..<count {
            groups.append(
                try await queue.enqueue(
                    .group((0..<children).map { .job(FailsOnce.self, $0, name: "c\($0)", options: options) }, maxConcurrent: 3, name: "g\(index)")))
        }
        groups.append(
            try await queue.enqueue(
                .sequence(
                    [.job(FailsOnce.self, 1, options: options)] + (0..<3).map { _ in .jobUsingPreviousOutput(FailsOnce.self, options: options) },
                    name: "chain")))
        return groups
    }

    @Test func groupsRunToTheirEndWhileEveryReferencedRowIsHeldAsAForeignKeyCheckHoldsIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await StoreBackend.postgres.queue(in: directory, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        queue.register(FailsOnce())
        try await queue.queues.configure(QueueConfiguration("limited", concurrencyLimit: 4))
        let groups = try await Self.enqueueGroups(queue, count: 2, children: 6)

        // Another transaction holds every job, group and queue row as a foreign-key check of an
        // insert referencing them does: nothing the engine does may wait for it.
        let release = try await TestPostgresServer.holdForeignKeyChecks(ofSchema: TestPostgresServer.schema(for: directory))
        do {
            try await withThrowingTaskGroup(of: Void.self) { running in
                running.addTask { try await queue.run() }
                for group in groups { _ = try await group.result(timeout: .seconds(60)) }
                running.cancelAll()
                try await running.waitForAll()
            }
        } catch {
            print(await TestPostgresServer.activity())
            try await release()
            throw error
        }
        try await release()
        #expect(try await queue.store.historyIsConsistent())
    }

    @Test func workersEndingGroupedJobsBesideClaimsOfTheirQueueNeverDeadlock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let backend = StoreBackend.postgresOwnDatabase
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        var workers: [JobQueue] = []
        for _ in 0..<3 { workers.append(try await backend.queue(in: directory, configuration: configuration)) }
        for worker in workers { worker.register(FailsOnce()) }
        try await workers[0].queues.configure(QueueConfiguration("limited", concurrencyLimit: 6))
        let groups = try await Self.enqueueGroups(workers[0], count: 24, children: 10)

        try await withThrowingTaskGroup(of: Void.self) { running in
            for worker in workers { running.addTask { try await worker.run() } }
            for group in groups { _ = try await group.result(timeout: .seconds(120)) }
            running.cancelAll()
            try await running.waitForAll()
        }
        let store = workers[0].store
        let jobs = try await store.jobs(JobFilter(limit: 1_000))
        #expect(jobs.count == 24 * 10 + 4 && jobs.allSatisfy { $0.state == .succeeded && $0.attempts == 2 })
        #expect(try await store.historyIsConsistent())
        // The server logs every deadlock it broke, and every lock waited for past deadlock_timeout.
        let problems = try #require(
            try await TestPostgresServer.lockProblems(inDatabase: StoreBackend.ownDatabase(directory)),
            "the tests' own server has a log to read (not one named by DURABLEQUEUE_TEST_POSTGRES_PORT)")
        #expect(problems.isEmpty, "the server log tells of deadlocks or long lock waits:\n\(problems.joined(separator: "\n"))")
    }
}
