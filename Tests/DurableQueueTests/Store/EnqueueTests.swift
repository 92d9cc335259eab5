import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct EnqueueTests {
    @Test(arguments: StoreBackend.all) func aDueJobIsPendingWithItsCreationEvent(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(input: #"{"url":"https://example.com"}"#, tags: ["a", "b", "a"]), now: 5_000)
            let record = try await store.job(id)
            #expect(record.state == .pending)
            #expect(canonicalJSON(record.input) == #"{"url":"https://example.com"}"#)
            #expect(record.runAt == 5_000)
            #expect(record.attempts == 0)
            #expect(record.tags == ["a", "b"])
            let history = try await store.history(of: id)
            #expect(history.count == 1)
            #expect(history[0].from == nil && history[0].to == .pending && history[0].reason == "enqueued")
            #expect(history[0].at == 5_000)
        }
    }

    /// An enqueue writes no event row: the job's row records its creation, which the history and
    /// the `job_history` view show first. A job from an earlier schema (creation as an event row,
    /// no `created_state`) shows the same.
    @Test(arguments: StoreBackend.all) func aCreationIsShownFromTheJobsRowAsFromAnEarlierVersionsEventRow(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let new = try await store.add(job(), now: 5_000)
            let earlier = try await store.add(job(), now: 5_000)
            let eventRows = try await store.transaction(now: 5_000) { tx, _ in
                let count = try tx.query("SELECT count(*) FROM job_events", [])[0][0].integer
                _ = try tx.execute("UPDATE jobs SET created_state = NULL WHERE id = $1", [.integer(earlier.rawValue)])
                if backend.name == StoreBackend.sqlite.name {
                    // Schema 13 numbers each job's rows and counts them on the job.
                    _ = try tx.execute(
                        """
                        INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason)
                        VALUES ($1, 1, 5000, NULL, 'pending', 0, 'enqueued')
                        """, [.integer(earlier.rawValue)])
                    _ = try tx.execute("UPDATE jobs SET event_count = 1 WHERE id = $1", [.integer(earlier.rawValue)])
                } else {
                    _ = try tx.execute(
                        "INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason) VALUES ($1, 5000, NULL, 'pending', 0, 'enqueued')",
                        [.integer(earlier.rawValue)])
                }
                return count
            }
            #expect(eventRows == 0)
            _ = try await store.take(limit: 2, now: 6_000)
            for id in [new, earlier] {
                let history = try await store.history(of: id)
                #expect(history.map(\.at) == [5_000, 6_000])
                #expect(history.first.map { $0.from == nil && $0.to == .pending && $0.reason == "enqueued" && $0.attempt == 0 } == true)
                #expect(try await store.transitions(id) == ["nil>pending", "pending>running"])
            }
            let view = try await store.transaction(now: 6_000) { tx, _ in
                try tx.query("SELECT job_id, from_state, to_state, reason FROM job_history", []).map { row in
                    row.map { $0.integer.map(String.init) ?? $0.text ?? "nil" }.joined(separator: " ")
                }
            }
            #expect(view == [
                "\(new.rawValue) nil pending enqueued", "\(new.rawValue) pending running claimed",
                "\(earlier.rawValue) nil pending enqueued", "\(earlier.rawValue) pending running claimed",
            ])
        }
    }

    @Test(arguments: StoreBackend.all) func aJobDueLaterIsScheduledAndPromotedWhenDue(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
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

    /// A store knows its next job id after its own commits; another store's commit on the same
    /// file (as another process's) must make it read the id again, or both would use one id.
    @Test func twoStoresOnOneFileTakingTurnsNeverUseOneIdTwice() async throws {
        try await withSQLiteStore { store, directory async throws in
            let other = try SQLiteJobStore(path: directory.path("jobs.sqlite"))
            var ids: [JobID] = []
            for round in 0..<12 {
                // Two in a row from one store, then the other; every third a batch of two.
                let enqueuing = round % 4 < 2 ? store : other
                if round % 3 == 0 {
                    ids += try await enqueuing.enqueue(batch: [job(input: "\(round)"), job(input: "\(round)b")], now: 1).map(\.id)
                } else {
                    ids.append(try await enqueuing.add(job(input: "\(round)")))
                }
                // A claim and an ending in between: commits that insert nothing.
                if round == 5, let claimed = try await other.take().first { try await other.succeed(claimed.id, now: 2) }
            }
            #expect(Set(ids).count == ids.count)
            #expect(ids == ids.sorted())
        }
    }

    /// A store knows a queue's order and throttle interval once it has read them; whoever changes
    /// them — another connection on the file, this store, an application's transaction — the next
    /// job, alone or in a batch, takes the new ones.
    @Test func anEnqueueTakesTheQueuesSettingsAsTheyAreWhoeverChangedThem() async throws {
        try await withSQLiteStore { store, directory async throws in
            let other = try SQLiteJobStore(path: directory.path("jobs.sqlite"))
            func throttled(_ milliseconds: Int) -> QueueConfiguration {
                QueueConfiguration("q", throttle: Throttle(.milliseconds(milliseconds)))
            }
            func interval(_ id: JobID) async throws -> Int64 { try await store.job(id).throttleIntervalMilliseconds }

            #expect(try await interval(store.add(job("q"))) == 0)
            try await other.configure(throttled(300), now: 1)
            #expect(try await interval(store.add(job("q"))) == 300)
            try await store.configure(throttled(100), now: 1)
            #expect(try await interval(store.add(job("q"))) == 100)
            _ = try await store.transaction(now: 1) { transaction, _ in
                try transaction.execute("UPDATE queues SET throttle_interval_ms = 50 WHERE name = 'q'", [])
            }
            #expect(try await interval(store.add(job("q"))) == 50)
            try await other.configure(throttled(20), now: 1)
            for outcome in try await store.enqueue(batch: [job("q"), job("q")], now: 1) {
                #expect(try await interval(outcome.id) == 20)
            }
            try await store.configure(throttled(10), now: 1)
            for outcome in try await store.enqueue(batch: [job("q"), job("q")], now: 1) {
                #expect(try await interval(outcome.id) == 10)
            }
            // The order too: a LIFO queue's new job comes first.
            try await other.configure(QueueConfiguration("q", mode: .lifo), now: 1)
            let newest = try await store.add(job("q", input: "\"newest\""))
            #expect(try await store.take("q").first?.id == newest)
        }
    }

    @Test(arguments: StoreBackend.all) func aBatchIsAllOrNothing(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let ids = try await store.enqueue(batch: (0..<50).map { job(input: "{\"n\":\($0)}") }, now: 1).map(\.id)
            #expect(Set(ids).count == 50)
            #expect(try await store.jobs(JobFilter(limit: 1_000)).count == 50)

            let bad = [job(), job(kind: ""), job()]
            let error = await #expect(throws: DurableQueueError.self) { try await store.enqueue(batch: bad, now: 1) }
            #expect(error?.code == .invalidArgument)
            #expect(try await store.jobs(JobFilter(limit: 1_000)).count == 50)
        }
    }

    @Test(arguments: StoreBackend.all) func aBatchNumbersItsNewJobsInOrderAndSkipsTheKeptOnes(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let outcomes = try await store.enqueue(
                batch: [job(uniqueKey: "k"), job(uniqueKey: "k"), job(), job(uniqueKey: "k", policy: .replace), job()], now: 1)
            #expect(outcomes == [.inserted(JobID(1)), .existing(JobID(1)), .inserted(JobID(2)), .replaced(JobID(3), replacing: JobID(1)), .inserted(JobID(4))])
            // The id counter moved with them: the next job gets the next id.
            #expect(try await store.add(job()) == JobID(5))
        }
    }

    @Test(arguments: StoreBackend.all, [
        (job(kind: ""), "kind"), (job(""), "queue"), (job(maxAttempts: 0), "maxAttempts"),
        (job(uniqueKey: ""), "uniqueKey"), (job(tags: ["ok", ""]), "tags"),
    ])
    func badInputIsRefusedNamingTheParameterAndChangesNothing(_ backend: StoreBackend, _ bad: (job: NewJob, parameter: String)) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await backend.make(directory)
        let error = await #expect(throws: DurableQueueError.self) { try await store.add(bad.job) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(bad.parameter) == true)
        #expect(try await store.jobs(JobFilter()).isEmpty)
        #expect(try await store.queueStatuses().isEmpty)
    }

    @Test(arguments: StoreBackend.all) func aQueueNobodyConfiguredIsCreatedWithDefaults(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            _ = try await store.add(job("thumbnails"))
            #expect(try await store.queue(named: "thumbnails") == QueueConfiguration("thumbnails"))
        }
    }

}
