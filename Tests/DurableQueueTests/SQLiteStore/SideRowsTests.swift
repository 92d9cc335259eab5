import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The columns of rare features live beside `jobs` (schema 29), one row per job that uses them: a
/// plain job writes none, and a hand-off's or wait's row leaves the index of those under way when
/// it ends, its record kept.
@Suite struct SideRowsTests {
    @Test func plainJobsWriteNoSideRowsWhateverTheirEnding() async throws {
        try await withSQLiteStore { store, directory async throws in
            _ = try await store.enqueue(batch: (0..<5).map { job(input: "\($0)") }, now: 1_000)
            for index in 5..<8 { _ = try await store.add(job(input: "\(index)", maxAttempts: 1), now: 1_000) }
            let claimed = try await store.take(limit: 8, now: 1_100)
            let failure = JobFailure(type: "E", message: "m", retryable: true)
            try await store.finish(
                claimed.enumerated().map { index, job in
                    FinishedAttempt(
                        job.attemptID, owner: "w1",
                        outcome: index % 3 == 0 ? .succeeded(output: "1") : index % 3 == 1 ? .retry(failure, after: 10) : .failed(failure))
                }, now: 1_200)
            _ = try await store.cancel(JobID(2), now: 1_300)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            #expect(try connection.scalarInt64("SELECT count(*) FROM jobs WHERE extras != 0") == 0)
            for table in ["job_options", "job_attempt_state", "job_wait_targets"] {
                #expect(try connection.scalarInt64("SELECT count(*) FROM \(table)") == 0, "\(table)")
            }
        }
    }

    @Test func aWaitAndAHandOffThatEndLeaveTheIndexOfThoseUnderWayAndKeepTheirRecord() async throws {
        try await withSQLiteStore { store, directory async throws in
            let waiting = try await store.add(job(input: "1"), now: 1_000)
            let carried = try await store.add(job(input: "2"), now: 1_000)
            _ = try await store.take(limit: 2, now: 1_100)
            _ = try await store.waitForSignal(.first(waiting), owner: "w1", name: "go", timeout: 500, now: 1_200)
            _ = try await store.handOff(
                .first(carried), owner: "w1", to: HandOffRequest(carrier: "c", reference: "r", timeout: 900), now: 1_200)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            func underWay() throws -> [String] {
                var rows: [String] = []
                try connection.query("SELECT job_id || ':' || active || ':' || due_at FROM job_wait_targets WHERE active IS NOT NULL ORDER BY job_id") {
                    rows.append($0.string(0))
                }
                return rows
            }
            #expect(try underWay() == ["1:waiting:1700", "2:handed_off:2100"])
            #expect(try await store.nextDeadline() == 1_700)
            _ = try await store.cancel(waiting, now: 1_300)
            _ = try await store.completeHandOff(.first(carried), outcome: .succeeded(output: "1"), reporter: "c", now: 1_400)
            #expect(try underWay() == [])
            #expect(try await store.nextDeadline() == nil)
            // The record stays: where the attempts went.
            #expect(try await store.job(waiting).waitingFor == "go")
            #expect(try await store.job(carried).handOff == HandOffTarget(carrier: "c", reference: "r", deadline: 2_100))
        }
    }

    /// A job that left `waiting` by a way that did not say so (here, a hand-edit) is taken out of
    /// the index by the next walk of passed deadlines, which never ends it.
    @Test func aWaitWhoseJobLeftWithoutSayingSoIsForgottenByTheNextWalk() async throws {
        try await withSQLiteStore { store, directory async throws in
            let id = try await store.add(job(), now: 1_000)
            _ = try await store.take(now: 1_100)
            _ = try await store.waitForSignal(.first(id), owner: "w1", name: "go", timeout: 100, now: 1_200)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            try connection.execute("UPDATE jobs SET state = 'pending' WHERE id = ?", [id.rawValue])
            #expect(try await store.nextDeadline() == nil)
            #expect(try await store.endPassedWaits(now: 5_000) == [])
            #expect(try connection.scalarInt64("SELECT count(*) FROM job_wait_targets WHERE active IS NOT NULL") == 0)
            #expect(try await store.job(id).state == .pending)
        }
    }
}
