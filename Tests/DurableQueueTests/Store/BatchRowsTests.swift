import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A batch writes its jobs several to a statement (SQLite); what it stores must not differ in any
/// column from what the same jobs enqueued one at a time store.
@Suite struct BatchRowsTests {
    @Test(arguments: StoreBackend.all)
    func aBatchStoresEveryColumnOfEveryJobAsEnqueuesOneAtATimeDo(_ backend: StoreBackend) async throws {
        let jobs = Self.variedJobs(count: 75)
        let oneAtATime = try await withStore(backend) { store, _ async throws in
            try await Self.configureQueues(store)
            for job in jobs { _ = try await store.enqueue(job, now: 1_000) }
            _ = try await store.add(job(input: "\"after\""), now: 1_000)
            return try await Self.contents(of: store, backend)
        }
        let batched = try await withStore(backend) { store, _ async throws in
            try await Self.configureQueues(store)
            let outcomes = try await store.enqueue(batch: jobs, now: 1_000)
            // The second job with the unique key finds the first; every other job is new.
            #expect(outcomes.filter { if case .existing = $0 { true } else { false } }.count == 1)
            // The ids go on from the batch's last one.
            _ = try await store.add(job(input: "\"after\""), now: 1_000)
            return try await Self.contents(of: store, backend)
        }
        #expect(batched.jobs.count == jobs.count)
        #expect(batched.jobs == oneAtATime.jobs)
        #expect(batched.tags == oneAtATime.tags)
        #expect(batched.history == oneAtATime.history)
        // The commit numbers (SQLite): transactions that only create jobs share one, after every
        // change counted so far (none here), whether one or many.
        if backend.name == StoreBackend.sqlite.name {
            #expect(Set((batched.jobs + oneAtATime.jobs).map { $0.last }) == [.integer(1)])
        }
    }

    /// Without a unique key a batch is one statement of a list per column (PostgreSQL's `unnest`,
    /// missing values included): every column as enqueues one at a time store it.
    @Test(arguments: StoreBackend.all)
    func aBatchWithoutUniqueKeysStoresEveryColumnAsEnqueuesOneAtATimeDo(_ backend: StoreBackend) async throws {
        let jobs = Self.variedJobs(count: 75).filter { $0.uniqueKey == nil }
        let oneAtATime = try await withStore(backend) { store, _ async throws in
            try await Self.configureQueues(store)
            for job in jobs { _ = try await store.enqueue(job, now: 1_000) }
            return try await Self.contents(of: store, backend)
        }
        let batched = try await withStore(backend) { store, _ async throws in
            try await Self.configureQueues(store)
            let outcomes = try await store.enqueue(batch: jobs, now: 1_000)
            #expect(outcomes.allSatisfy { if case .inserted = $0 { true } else { false } })
            return try await Self.contents(of: store, backend)
        }
        #expect(batched.jobs.count == jobs.count)
        #expect(batched.jobs == oneAtATime.jobs)
        #expect(batched.tags == oneAtATime.tags && !batched.tags.isEmpty)
        #expect(batched.history == oneAtATime.history)
    }

    /// Jobs over a FIFO, a LIFO and a throttled queue, due and scheduled, with and without their
    /// own throttle interval, tags, partitions, limits and a unique key (twice, so the second is
    /// kept out) among them: runs of plain jobs longer than one statement between the others.
    static func variedJobs(count: Int) -> [NewJob] {
        (0..<count).map { index in
            var job = job(
                ["plain", "newest", "slow"][index % 3], kind: index % 4 == 0 ? "a" : "b", input: "{\"n\":\(index)}",
                priority: index % 5 == 0 ? .high : .normal, runAt: index % 7 == 0 ? 9_000 : nil,
                maxAttempts: index % 2 == 0 ? 3 : nil,
                uniqueKey: index == 40 || index == 41 ? "once" : index == 50 ? "repeatable" : nil,
                policy: index == 50 ? .allow : .keep, tags: index % 6 == 0 ? ["t\(index % 4)", "every-sixth"] : [],
                throttleInterval: index % 8 == 0 ? 50 : nil)
            job.partitionKey = index % 9 == 0 ? "p\(index % 2)" : nil
            job.timeoutMilliseconds = index % 10 == 0 ? 30_000 : nil
            job.traceContext = index % 11 == 0 ? #"{"traceparent":"00-\#(index)"}"# : nil
            job.retryPolicy = index % 12 == 0 ? #"{"maximumAttempts":2}"# : nil
            return job
        }
    }

    static func configureQueues(_ store: any JobStore) async throws {
        try await store.configure(QueueConfiguration("newest", mode: .lifo), now: 0)
        try await store.configure(QueueConfiguration("slow", throttle: Throttle(.milliseconds(700))), now: 0)
    }

    /// Every column of every job, the tags and the history, in a fixed order.
    /// Every column of every job (on SQLite with its side rows, and its commit number last), its
    /// tags and its history.
    static func contents(of store: any JobStore, _ backend: StoreBackend) async throws
        -> (jobs: [[SQLValue]], tags: [[SQLValue]], history: [[SQLValue]])
    {
        let jobs =
            backend.name == StoreBackend.sqlite.name
            ? """
            SELECT j.*, o.*, a.*, j.created_tx FROM jobs AS j LEFT JOIN job_options AS o ON o.job_id = j.id
            LEFT JOIN job_attempt_state AS a ON a.job_id = j.id ORDER BY j.id
            """ : "SELECT * FROM jobs ORDER BY id"
        return try await store.transaction(now: 1_000) { transaction, _ in
            (
                try transaction.query(jobs, []),
                try transaction.query("SELECT tag, job_id FROM job_tags ORDER BY job_id, tag", []),
                try transaction.query("SELECT * FROM job_history ORDER BY job_id", [])
            )
        }
    }
}
