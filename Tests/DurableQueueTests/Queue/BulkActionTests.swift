import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Bulk actions by filter on both stores: retry, cancel or delete every job a selection matches,
/// with a dry run that counts first, each change in the history, in bounded transactions.
@Suite(.timeLimit(.minutes(2))) struct BulkActionTests {
    /// Claims job `id` of `queue` for "w" at `now` and ends its attempt with `failure`.
    private func fail(_ store: any JobStore, _ id: JobID, queue: String, _ failure: JobFailure, now: Int64) async throws {
        #expect(try await store.claim(queue: queue, limit: 1, owner: "w", leaseDuration: 30_000, now: now).map(\.id) == [id])
        try await store.finish([FinishedAttempt(.first(id), owner: "w", outcome: .failed(failure))], now: now + 1)
    }

    @Test(arguments: StoreBackend.all) func aDryRunCountsAndRetryTakesOnlyTheFailedJobsTheSelectionMatches(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let store = queue.store
        let timeout = JobFailure(type: "URLError", message: "The request timed out.", retryable: false)
        let full = JobFailure(type: "SMTPError", message: "mailbox full", retryable: false)
        var timedOut: [JobID] = []
        for index in 0..<3 {
            let id = try await store.add(job("mail", kind: "send"), now: 1_000 + Int64(index))
            try await fail(store, id, queue: "mail", timeout, now: 2_000)
            timedOut.append(id)
        }
        let mailboxFull = try await store.add(job("mail", kind: "send"), now: 1_100)
        try await fail(store, mailboxFull, queue: "mail", full, now: 2_000)
        let otherQueue = try await store.add(job("api", kind: "send"), now: 1_200)
        try await fail(store, otherQueue, queue: "api", timeout, now: 2_000)
        let pending = try await store.add(job("mail", kind: "send"), now: 1_300)

        let selection = JobSelection(queues: ["mail"], errorContains: "TIMED OUT")
        let dry = try await queue.jobs.apply(.retry, to: selection, dryRun: true)
        #expect(dry == BulkResult(action: .retry, matched: 3, changed: 0, dryRun: true))
        #expect(try await timedOut.asyncMap { try await store.job($0).state } == [.failed, .failed, .failed])

        let done = try await queue.jobs.apply(.retry, to: selection)
        #expect(done == BulkResult(action: .retry, matched: 3, changed: 3, dryRun: false))
        for id in timedOut {
            let record = try await store.job(id)
            #expect(record.state == .pending && record.attempts == 0)
            let last = try #require(try await store.history(of: id).last)
            #expect(last.from == .failed && last.to == .pending)
            #expect(last.reason == #"retry requested after 1 attempt(s); retry by a bulk action (queue mail, error contains "TIMED OUT")"#)
        }
        #expect(try await store.job(mailboxFull).state == .failed)
        #expect(try await store.job(otherQueue).state == .failed)
        #expect(try await store.job(pending).state == .pending)
        // Nothing failed is left to match; an error type matches too.
        #expect(try await queue.jobs.apply(.retry, to: selection).matched == 0)
        #expect(try await queue.jobs.apply(.retry, to: JobSelection(errorContains: "smtperror"), dryRun: true).matched == 1)
        // States the action does not apply to select nothing.
        #expect(try await queue.jobs.apply(.retry, to: JobSelection(states: [.pending])).matched == 0)
    }

    @Test(arguments: StoreBackend.all) func cancelTakesUnfinishedJobsByKindAndCreationTime(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The queue's clock stands at 1970: its store stamps the creation times this test gives.
        let clock = ManualClock(now: Date(timeIntervalSince1970: 0))
        let queue = try await backend.queue(in: directory, configuration: JobQueue.Configuration(timeSource: clock))
        let store = queue.store
        let finished = try await store.add(job(kind: "a"), now: 2_100)
        _ = try await store.take(now: 2_200)
        try await store.succeed(finished, now: 2_300)
        let early = try await store.add(job(kind: "a"), now: 1_000)
        let running = try await store.add(job(kind: "a"), now: 2_000)
        #expect(try await store.claim(queue: "default", limit: 1, owner: "elsewhere", leaseDuration: 30_000, now: 2_500, excluding: [early]).map(\.id) == [running])
        let late = try await store.add(job(kind: "a"), now: 9_000)
        let otherKind = try await store.add(job(kind: "b"), now: 2_000)

        let selection = JobSelection(
            kinds: ["a"], createdFrom: Date(millisecondsSince1970: 1_500), createdBefore: Date(millisecondsSince1970: 9_000))
        #expect(try await queue.jobs.apply(.cancel, to: selection, dryRun: true).matched == 1)
        #expect(try await queue.jobs.apply(.cancel, to: selection) == BulkResult(action: .cancel, matched: 1, changed: 1, dryRun: false))
        let record = try await store.job(running)
        #expect(record.state == .running && record.cancelRequested)
        #expect(try await store.history(of: running).last?.reason == "cancel by a bulk action (kind a, created from 1970-01-01T00:00:01.500Z, created before 1970-01-01T00:00:09.000Z)")
        #expect(try await [early, late, otherKind].asyncMap { try await store.job($0).state } == [.pending, .pending, .pending])
        #expect(try await store.job(finished).state == .succeeded)
    }

    @Test(arguments: StoreBackend.all) func deleteTakesFinishedJobsAndLeavesALineForEach(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let store = queue.store
        let failure = JobFailure(type: "Boom", message: "boom", retryable: false)
        let failed = try await store.add(job(kind: "a", tags: ["old"]))
        try await fail(store, failed, queue: "default", failure, now: 2_000)
        let succeeded = try await store.add(job(kind: "a", tags: ["old"]))
        _ = try await store.take()
        try await store.succeed(succeeded, now: 3_000)
        let waiting = try await store.add(job(kind: "a", tags: ["old"]))

        #expect(try await queue.jobs.apply(.delete, to: JobSelection(tag: "old"), dryRun: true).matched == 2)
        #expect(try await queue.jobs.apply(.delete, to: JobSelection(tag: "old")) == BulkResult(action: .delete, matched: 2, changed: 2, dryRun: false))
        for id in [failed, succeeded] {
            await #expect(throws: DurableQueueError.self) { _ = try await store.job(id) }
        }
        #expect(try await store.job(waiting).state == .pending)
        // Their history went with them (a trigger on both backends since job_events has no
        // foreign key); the job left keeps its own.
        let history = try await queue.transaction { tx in try tx.query("SELECT DISTINCT job_id FROM job_history ORDER BY job_id") }
        #expect(history == [[.integer(waiting.rawValue)]], "\(history)")
        let events = try await queue.transaction { tx in try tx.query("SELECT count(*) FROM job_events WHERE job_id <> ?", [.integer(waiting.rawValue)]) }
        #expect(events == [[.integer(0)]], "\(events)")
        let lines = try await queue.transaction { tx in try tx.query("SELECT job_id, state, reason FROM deleted_jobs ORDER BY job_id") }
        #expect(
            lines == [
                [.integer(failed.rawValue), .text("failed"), .text("delete by a bulk action (tag old)")],
                [.integer(succeeded.rawValue), .text("succeeded"), .text("delete by a bulk action (tag old)")],
            ], "\(lines)")

        // The lines go as finished jobs of their state do, counted from the deletion.
        let now = Date().millisecondsSince1970
        #expect(try await store.prune(state: .failed, finishedBefore: now - 3_600_000, limit: 500, now: now) == 0)
        #expect(try await store.prune(state: .failed, finishedBefore: now + 1_000, limit: 500, now: now) == 1)
        let left = try await queue.transaction { tx in try tx.query("SELECT job_id FROM deleted_jobs") }
        #expect(left == [[.integer(succeeded.rawValue)]], "\(left)")
    }

    @Test(arguments: StoreBackend.all) func aLargeSelectionGoesThroughInBatchesAndGroupMembersAreLeft(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        let store = queue.store
        let count = 2 * BulkAction.batchSize + 34
        let ids = try await store.enqueue((0..<count).map { _ in job(kind: "a", maxAttempts: 1) }, now: 1_000).map(\.id)
        var claimed = 0
        while claimed < count {
            let batch = try await store.claim(queue: "default", limit: 200, owner: "w", leaseDuration: 30_000, now: 2_000)
            let failure = JobFailure(type: "Boom", message: "boom", retryable: false)
            try await store.finish(batch.map { FinishedAttempt(AttemptID(job: $0.id, number: $0.attempt), owner: "w", outcome: .failed(failure)) }, now: 2_001)
            claimed += batch.count
        }
        // A failed member of a sequence: a bulk retry leaves it (the sequence is enqueued again instead).
        _ = try await store.enqueue(
            composition: .group(.sequence, [.job(job(kind: "b", maxAttempts: 1), name: "only", takesPreviousOutput: false)], maxConcurrent: 1, name: "chain"),
            now: 3_000)
        let member = try #require(try await store.jobs(JobFilter(kinds: ["b"])).first?.id)
        try await fail(store, member, queue: "default", JobFailure(type: "Boom", message: "boom", retryable: false), now: 3_100)

        let result = try await queue.jobs.apply(.retry, to: JobSelection(states: [.failed]))
        #expect(result == BulkResult(action: .retry, matched: count + 1, changed: count, dryRun: false))
        #expect(try await store.count(JobFilter(states: [.pending], kinds: ["a"])) == count)
        #expect(try await store.job(member).state == .failed)
        #expect(try await store.history(of: ids.last!).last?.to == .pending)
    }
}

