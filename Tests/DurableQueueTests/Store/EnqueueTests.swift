import Foundation
import Testing

@testable import DurableQueue

@Suite struct EnqueueTests {
    @Test func aDueJobIsPendingWithItsCreationEvent() async throws {
        try await withStore { store, _ async throws in
            let id = try await store.add(job(input: #"{"url":"https://example.com"}"#, tags: ["a", "b", "a"]), now: 5_000)
            let record = try await store.job(id)
            #expect(record.state == .pending)
            #expect(record.input == #"{"url":"https://example.com"}"#)
            #expect(record.runAt == 5_000)
            #expect(record.attempts == 0)
            #expect(record.tags == ["a", "b"])
            let history = try await store.history(of: id)
            #expect(history.count == 1)
            #expect(history[0].from == nil && history[0].to == .pending && history[0].reason == "enqueued")
            #expect(history[0].at == 5_000)
        }
    }

    @Test func aJobDueLaterIsScheduledAndPromotedWhenDue() async throws {
        try await withStore { store, _ async throws in
            let id = try await store.add(job(runAt: 9_000), now: 1_000)
            #expect(try await store.job(id).state == .scheduled)
            #expect(try await store.nextWakeTime(after: 0) == 9_000)
            #expect(try await store.take(now: 8_999).isEmpty)
            #expect(try await store.job(id).state == .scheduled)
            let claimed = try await store.take(now: 9_000)
            #expect(claimed.map(\.id) == [id])
            #expect(try await store.transitions(id) == ["nil>scheduled", "scheduled>pending", "pending>running"])
            #expect(try await store.nextWakeTime(after: 0) == nil)
        }
    }

    @Test func aBatchIsAllOrNothing() async throws {
        try await withStore { store, _ async throws in
            let ids = try await store.enqueue(batch: (0..<50).map { job(input: "{\"n\":\($0)}") }, now: 1).map(\.id)
            #expect(Set(ids).count == 50)
            #expect(try await store.jobs(JobFilter(limit: 1_000)).count == 50)

            let bad = [job(), job(kind: ""), job()]
            let error = await #expect(throws: DurableQueueError.self) { try await store.enqueue(batch: bad, now: 1) }
            #expect(error?.code == .invalidArgument)
            #expect(try await store.jobs(JobFilter(limit: 1_000)).count == 50)
        }
    }

    @Test func aBatchNumbersItsNewJobsInOrderAndSkipsTheKeptOnes() async throws {
        try await withStore { store, _ async throws in
            let outcomes = try await store.enqueue(
                batch: [job(uniqueKey: "k"), job(uniqueKey: "k"), job(), job(uniqueKey: "k", policy: .replace), job()], now: 1)
            #expect(outcomes == [.inserted(JobID(1)), .existing(JobID(1)), .inserted(JobID(2)), .replaced(JobID(3), replacing: JobID(1)), .inserted(JobID(4))])
            // The AUTOINCREMENT counter moved with them: the next job gets the next id.
            #expect(try await store.add(job()) == JobID(5))
        }
    }

    @Test(arguments: [
        (job(kind: ""), "kind"), (job(""), "queue"), (job(maxAttempts: 0), "maxAttempts"),
        (job(uniqueKey: ""), "uniqueKey"), (job(tags: ["ok", ""]), "tags"),
    ])
    func badInputIsRefusedNamingTheParameterAndChangesNothing(bad: NewJob, parameter: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("jobs.sqlite"))
        let error = await #expect(throws: DurableQueueError.self) { try await store.add(bad) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(parameter) == true)
        #expect(try await store.jobs(JobFilter()).isEmpty)
        #expect(try await store.queues().isEmpty)
    }

    @Test func aQueueNobodyConfiguredIsCreatedWithDefaults() async throws {
        try await withStore { store, _ async throws in
            _ = try await store.add(job("thumbnails"))
            #expect(try await store.queue(named: "thumbnails") == QueueConfiguration("thumbnails"))
        }
    }

    @Test func idsAreNeverReusedAfterJobsAreDeleted() async throws {
        try await withStore { store, directory async throws in
            let first = try await store.add(job())
            try Connection(path: directory.path("jobs.sqlite"), options: StorageOptions()).executeScript("DELETE FROM jobs")
            let second = try await store.add(job())
            #expect(second > first)
        }
    }
}
