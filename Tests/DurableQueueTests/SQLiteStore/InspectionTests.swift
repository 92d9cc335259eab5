import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What a person sees when they open the file with the `sqlite3` shell.
@Suite struct InspectionTests {
    /// Fills a store with jobs in several states: 2 pending, 1 running, 1 succeeded, 1 failed, 1 scheduled.
    private func populate(_ store: SQLiteJobStore) async throws {
        let ids = try await store.enqueue(batch: (0..<5).map { job("mail", input: "{\"n\":\($0)}", tags: ["t\($0)"]) }, now: 1_700_000_000_000).map(\.id)
        _ = try await store.add(job("mail", runAt: 1_800_000_000_000), now: 1_700_000_000_000)
        _ = try await store.take("mail", limit: 3, now: 1_700_000_001_000)
        try await store.finish(
            [
                FinishedAttempt(.first(ids[0]), owner: "w1", outcome: .succeeded(output: #"{"sent":true}"#)),
                FinishedAttempt(.first(ids[1]), owner: "w1", outcome: .failed(JobFailure(type: "SMTPError", message: "mailbox full", retryable: false))),
            ], now: 1_700_000_002_000)
    }

    @Test func countsByQueueAndState() async throws {
        try await withSQLiteStore { store, _ async throws in
            try await populate(store)
            let mail = try #require(try await store.counts().first)
            #expect(mail.queue == "mail")
            #expect(mail.counts == [.pending: 2, .running: 1, .succeeded: 1, .failed: 1, .scheduled: 1])
        }
    }

    @Test func waitingCountsAddScheduledPendingAndBlockedPerQueue() async throws {
        try await withSQLiteStore { store, _ async throws in
            try await populate(store)
            // A sequence of two steps: the first pending, the second blocked behind it.
            let steps = [CompositionNode.job(job("steps"), name: nil, takesPreviousOutput: false),
                         CompositionNode.job(job("steps"), name: nil, takesPreviousOutput: false)]
            _ = try await store.enqueue(composition: .group(.sequence, steps, maxConcurrent: 0, name: nil), now: 1_700_000_000_000)
            try await store.configure(QueueConfiguration("idle"), now: 1_700_000_000_000)
            #expect(try await store.counts().first { $0.queue == "steps" }?.counts == [.pending: 1, .blocked: 1])
            #expect(try await store.waitingJobCounts() == ["mail": 3, "steps": 2, "idle": 0])
        }
    }

    @Test func listingFiltersByStateQueueAndTag() async throws {
        try await withSQLiteStore { store, _ async throws in
            try await populate(store)
            #expect(try await store.jobs(JobFilter(state: .pending)).map(\.input) == [#"{"n":4}"#, #"{"n":3}"#])
            #expect(try await store.jobs(JobFilter(queue: "other")).isEmpty)
            #expect(try await store.jobs(JobFilter(tag: "t1")).map(\.state) == [.failed])
            #expect(try await store.jobs(JobFilter(limit: 2)).count == 2)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs the sqlite3 shell"))
    func theSqlite3ShellReadsTheFileNaturally() async throws {
        try await withSQLiteStore { store, directory async throws in
            try await populate(store)
            let path = directory.path("jobs.sqlite")
            #expect(try sqlite3(path, "select state, count(*) from jobs group by state order by state")
                == "failed|1\npending|2\nrunning|1\nscheduled|1\nsucceeded|1\n")
            #expect(try sqlite3(path, "select queue, pending, running, succeeded, failed, scheduled from queue_status")
                == "mail|2|1|1|1|1\n")
            #expect(try sqlite3(path, "select id, state, priority, tags, created_at, error_message from job_list where id = 2")
                == "2|failed|normal|t1|2023-11-14T22:13:20.000Z|mailbox full\n")
            #expect(try sqlite3(path, "select at, from_state, to_state, attempt, reason from job_history where job_id = 1")
                == """
                2023-11-14T22:13:20.000Z||pending|0|enqueued
                2023-11-14T22:13:21.000Z|pending|running|1|claimed
                2023-11-14T22:13:22.000Z|running|succeeded|1|succeeded

                """)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs the sqlite3 shell"))
    func theSqlite3ShellShowsThrottleAndRateLimitState() async throws {
        try await withSQLiteStore { store, directory async throws in
            let settings = QueueConfiguration(
                "api", throttle: Throttle(.milliseconds(500), measuredFrom: .end, mutability: .none),
                rateLimit: RateLimit(2, per: .seconds(3600)))
            try await store.configure(settings, now: 0)
            _ = try await store.add(job("api", throttleInterval: 2_000))
            let now = Date().millisecondsSince1970
            let started = try #require(try await store.take("api", now: now).first)
            try await store.succeed(started.id, now: now)
            let path = directory.path("jobs.sqlite")
            #expect(try sqlite3(path, """
                select queue, throttle_interval_ms, throttle_measured_from, throttle_mutability, rate_limit_count,
                       rate_limit_window_ms, starts_in_window from queue_status
                """) == "api|500|end|none|2|3600000|1\n")
            // The next allowed start: the job's own 2 s after its end, shown as ISO-8601 in the view.
            #expect(try sqlite3(path, "select next_start_at from queues") == "\(now + 2_000)\n")
            let shown = try sqlite3(path, "select next_start from queue_status")
            #expect(shown.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n/) != nil, "\(shown)")
            #expect(try sqlite3(path, "select throttle_interval_ms, throttle_interval_source from job_list") == "2000|job\n")
        }
    }

    /// Runs the `sqlite3` shell on `path` with one statement and returns what it prints.
    private func sqlite3(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        process.standardOutput = output
        let exit = try ProcessExit.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        _ = exit.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
