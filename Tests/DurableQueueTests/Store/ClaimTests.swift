import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct ClaimTests {
    @Test(arguments: StoreBackend.all) func aClaimCountsTheAttemptAndTakesTheLease(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(input: #"{"n":1}"#))
            let claimed = try #require(try await store.claim(queue: "default", limit: 1, owner: "w1", leaseDuration: 500, now: 2_000).first)
            #expect(claimed.id == id && claimed.attempt == 1 && canonicalJSON(claimed.input) == #"{"n":1}"#)
            let record = try await store.job(id)
            #expect(record.state == .running && record.attempts == 1)
            #expect(record.leaseOwner == "w1" && record.leaseExpiresAt == 2_500 && record.startedAt == 2_000)
            let event = try #require(try await store.history(of: id).last)
            #expect(event.from == .pending && event.to == .running && event.worker == "w1" && event.attempt == 1)
            #expect(try await store.take().isEmpty)
        }
    }

    @Test(arguments: StoreBackend.all) func severalJobsAreClaimedAtOnceInQueueOrder(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let ids = try await store.enqueue(batch: (0..<10).map { job(input: "\($0)") }, now: 1).map(\.id)
            let claimed = try await store.take(limit: 4)
            #expect(claimed.map(\.id) == Array(ids.prefix(4)))
            #expect(try await store.take(limit: 100).map(\.id) == Array(ids.dropFirst(4)))
        }
    }

    /// More due jobs than one multi-row statement takes: every one is promoted, with its own history
    /// row, and none that is not yet due.
    @Test(arguments: StoreBackend.all) func dueJobsArePromotedTogetherEachWithItsHistoryRow(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let due = try await store.enqueue(batch: (0..<40).map { job(input: "\($0)", runAt: 2_000 + Int64($0 % 3)) }, now: 1_000)
                .map(\.id)
            let later = try await store.add(job(runAt: 9_000))
            let claimed = try await store.take(limit: 100, now: 3_000)
            #expect(Set(claimed.map(\.id)) == Set(due))
            for id in due {
                #expect(try await store.transitions(id) == ["nil>scheduled", "scheduled>pending", "pending>running"])
                #expect(try await store.history(of: id)[1].reason == "due")
            }
            #expect(try await store.job(later).state == .scheduled)
            #expect(try await store.historyIsConsistent())
        }
    }

    @Test(arguments: StoreBackend.all) func theConcurrencyLimitHoldsAcrossWorkers(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            try await store.configure(QueueConfiguration("q", concurrencyLimit: 3), now: 0)
            _ = try await store.enqueue(batch: (0..<10).map { _ in job("q") }, now: 1)
            #expect(try await store.take("q", limit: 2, owner: "a").count == 2)
            let second = try await store.take("q", limit: 5, owner: "b")
            #expect(second.count == 1)
            #expect(try await store.take("q", limit: 5, owner: "c").isEmpty)
            try await store.finish([FinishedAttempt(second[0].attemptID, owner: "b", outcome: .succeeded(output: "1"))], now: 2)
            #expect(try await store.take("q", limit: 5, owner: "c").count == 1)
        }
    }

    /// Four workers (each its own store: its own connection, as on four machines) claiming at the
    /// same moment never start more than the limit: each counts the running jobs only after the
    /// claims before it committed.
    @Test(arguments: StoreBackend.all) func simultaneousClaimsFromSeveralWorkersNeverExceedTheLimit(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var workers: [any JobStore] = []
        for _ in 0..<4 { workers.append(try await backend.make(directory)) }
        try await workers[0].configure(QueueConfiguration("q", concurrencyLimit: 3), now: 0)
        _ = try await workers[0].enqueue(batch: (0..<200).map { _ in job("q") }, now: 1)
        for round in 0..<25 {
            let claimed = try await withThrowingTaskGroup(of: [(Int, ClaimedJob)].self) { group in
                for (index, worker) in workers.enumerated() {
                    group.addTask {
                        try await worker.take("q", limit: 5, owner: "w\(index)", now: 10 + Int64(round)).map { (index, $0) }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(claimed.count <= 3, "round \(round): \(claimed.count) jobs running on a queue limited to 3")
            #expect(try await workers[0].count(JobFilter(state: .running)) <= 3)
            for (index, job) in claimed {
                _ = try await workers[index].finish(
                    [FinishedAttempt(job.attemptID, owner: "w\(index)", outcome: .succeeded(output: "1"))], now: 10 + Int64(round))
            }
        }
    }

    @Test(arguments: StoreBackend.all) func aSuspendedQueueStartsNothingUntilResumed(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            _ = try await store.add(job("q"))
            try await store.setSuspended(true, queue: "q", now: 2)
            #expect(try await store.queue(named: "q")?.isPaused == true)
            #expect(try await store.take("q").isEmpty)
            try await store.setSuspended(false, queue: "q", now: 3)
            #expect(try await store.take("q").count == 1)
        }
    }

    @Test(arguments: StoreBackend.all) func suspendingAnUnknownQueueIsAnError(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let error = await #expect(throws: DurableQueueError.self) { try await store.setSuspended(true, queue: "nope", now: 1) }
            #expect(error?.code == .invalidArgument)
            #expect(try await store.queueStatuses().isEmpty)
        }
    }

    @Test(arguments: StoreBackend.all) func onlyKindsThisWorkerKnowsAreClaimed(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            var unknown: [JobID] = []
            for _ in 0..<3 { unknown.append(try await store.add(job(kind: "resize"))) }
            let known = try await store.add(job(kind: "download"))
            // Jobs of other kinds ahead in the queue neither get claimed nor use up the limit.
            let claimed = try await store.claim(
                queue: "default", limit: 1, owner: "w1", leaseDuration: 1_000, now: 2, kinds: ["download", "quote\"d"])
            #expect(claimed.map(\.id) == [known])
            for id in unknown { #expect(try await store.job(id).state == .pending) }
        }
    }

    @Test(arguments: StoreBackend.all) func badQueueSettingsAreRefusedAndChangeNothing(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            try await store.configure(QueueConfiguration("q", concurrencyLimit: 2), now: 0)
            let error = await #expect(throws: DurableQueueError.self) {
                try await store.configure(QueueConfiguration("q", concurrencyLimit: -1), now: 1)
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("concurrencyLimit") == true)
            #expect(try await store.queue(named: "q")?.concurrencyLimit == 2)
            #expect(throws: DurableQueueError.self) { try QueueMode(validating: "random") }
            // Room 0 only promotes due jobs; a negative room is a mistake.
            let limitError = await #expect(throws: DurableQueueError.self) { try await store.take(limit: -1) }
            #expect(limitError?.code == .invalidArgument)
        }
    }
}
