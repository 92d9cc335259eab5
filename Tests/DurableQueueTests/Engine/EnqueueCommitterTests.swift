import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.timeLimit(.minutes(1))) struct EnqueueCommitterTests {
    @Test(arguments: StoreBackend.all) func concurrentEnqueuesAreEachCommittedBeforeTheirCallerHears(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, directory in
            let committer = EnqueueCommitter(store: store, time: SystemTimeSource())
            // Another connection to the same database sees each job: it is stored, not only in memory.
            let reader = try await backend.make(directory)
            let ids = try await withThrowingTaskGroup(of: JobID.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let id = try await committer.enqueue(job(input: "{\"n\":\(index)}")).id
                        #expect(canonicalJSON(try await reader.job(id).input) == "{\"n\":\(index)}")
                        return id
                    }
                }
                return try await group.reduce(into: [JobID]()) { $0.append($1) }
            }
            #expect(Set(ids).count == 200)
            for id in ids { #expect(try await store.history(of: id).map(\.reason) == ["enqueued"]) }
        }
    }

    @Test(arguments: StoreBackend.all) func callersWithTheSameUniqueKeyGetOneJob(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ in
            let committer = EnqueueCommitter(store: store, time: SystemTimeSource())
            let ids = try await withThrowingTaskGroup(of: JobID.self) { group in
                for _ in 0..<20 { group.addTask { try await committer.enqueue(job(uniqueKey: "once")).id } }
                return try await group.reduce(into: Set<JobID>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            #expect(try await store.jobs(JobFilter(limit: 100)).count == 1)
        }
    }

    @Test func aFailedTransactionReachesItsCallersAndTheNextCallerCommits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let store = try SQLiteJobStore(path: path, options: StorageOptions(busyTimeout: .milliseconds(100)))
        let committer = EnqueueCommitter(store: store, time: SystemTimeSource())
        // Another process holds the write lock longer than the busy timeout.
        let other = try SQLiteConnection(path: path, options: StorageOptions())
        try other.execute("BEGIN IMMEDIATE")
        let failures = await withTaskGroup(of: DurableQueueError.Code?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await committer.enqueue(job())
                        return nil
                    } catch {
                        return (error as? DurableQueueError)?.code
                    }
                }
            }
            return await group.reduce(into: [DurableQueueError.Code?]()) { $0.append($1) }
        }
        #expect(failures == Array(repeating: .databaseLocked, count: 5))
        try other.execute("ROLLBACK")
        #expect(try await store.jobs(JobFilter(limit: 100)).isEmpty)
        // Nobody is left holding the lead.
        let id = try await committer.enqueue(job()).id
        #expect(try await store.job(id).state == .pending)
    }
}
