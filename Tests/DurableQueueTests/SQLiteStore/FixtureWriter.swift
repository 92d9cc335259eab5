import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Writes `Fixtures/every-feature-v28.sqlite`, the file ``UpgradeFixtureTests`` upgrades: run with
/// `DURABLEQUEUE_WRITE_FIXTURE=<path>` on the release whose schema the fixture keeps (0.1.0 plus
/// migrations 27 and 28, commit a445829), through the store's own calls, every feature in use.
/// Other runs skip it: the fixture is made once, from that release, and kept.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DURABLEQUEUE_WRITE_FIXTURE"] != nil))
struct FixtureWriter {
    @Test func writeAFileWithEveryFeatureInUse() async throws {
        let output = try #require(ProcessInfo.processInfo.environment["DURABLEQUEUE_WRITE_FIXTURE"])
        try await withSQLiteStore { store, directory async throws in
            try await Self.useEveryFeature(store)
            let connection = try SQLiteConnection(path: directory.path("jobs.sqlite"), options: StorageOptions())
            try? FileManager.default.removeItem(atPath: output)
            try connection.execute("VACUUM INTO ?", [output])
        }
    }

    /// Jobs in every state, with every option, hand-off, wait, step, dependency, group, cache entry
    /// and schedule, each at a time of its own.
    static func useEveryFeature(_ store: any JobStore) async throws {
        let failure = JobFailure(type: "Boom", message: "boom", retryable: true)
        func attempt(_ id: JobID, _ number: Int = 1) -> AttemptID { AttemptID(job: id, number: number) }

        // 1 succeeded with an output, 2 failed for good, 3 retried once and scheduled again.
        let succeeded = try await store.add(job(input: #"{"n":1}"#), now: 1_000)
        let failed = try await store.add(job(input: #"{"n":2}"#, maxAttempts: 1), now: 1_000)
        let retried = try await store.add(job(input: #"{"n":3}"#), now: 1_000)
        _ = try await store.take(limit: 3, now: 1_100)
        try await store.finish(
            [
                FinishedAttempt(attempt(succeeded), owner: "w1", outcome: .succeeded(output: #"{"ok":true}"#)),
                FinishedAttempt(attempt(failed), owner: "w1", outcome: .failed(failure)),
                FinishedAttempt(attempt(retried), owner: "w1", outcome: .retry(failure, after: 1_000_000)),
            ], now: 1_200)

        // 4 with every option of its own, tags, a partition and version 2, left pending.
        _ = try await store.enqueue(
            NewJob(
                queue: "options", kind: "test", version: 2, input: #"{"n":4}"#, priority: .high, maxAttempts: 7,
                retryPolicy: #"{"kind":"constant","delay":250}"#, timeoutMilliseconds: 9_000, uniqueKey: "key-4",
                uniqueWindowMilliseconds: 60_000, partitionKey: "tenant-a", tags: ["red", "blue"],
                throttleIntervalMilliseconds: 50, traceContext: #"{"traceparent":"00-abc-def-01"}"#),
            now: 2_000)
        // 5 keeps key-4's holder (an existing job, no row), 6 a debounced key, replaced input.
        _ = try await store.enqueue(job("options", input: #"{"n":5}"#, uniqueKey: "key-4"), now: 2_010)
        let debounced = try await store.add(job("keys", input: #"{"v":1}"#, uniqueKey: "key-6", policy: .debounce), now: 2_020)
        _ = try await store.enqueue(job("keys", input: #"{"v":2}"#, uniqueKey: "key-6", policy: .debounce), now: 2_030)

        // 7 running with progress and a checkpoint; 8 a lost attempt counted (poison count).
        let progressing = try await store.add(job("progress", input: #"{"n":7}"#), now: 3_000)
        let lost = try await store.add(job("progress", input: #"{"n":8}"#, maxAttempts: 5), now: 3_000)
        _ = try await store.take("progress", limit: 2, now: 3_100)
        _ = try await store.saveProgress(attempt(progressing), owner: "w1", progress: 0.25, checkpoint: [1, 2, 3], now: 3_200)
        _ = try await store.renewLeases([attempt(progressing)], owner: "w1", expiresAt: 10_000_000)
        _ = try await store.recoverExpiredLeases(now: 3_100 + 30_001, lostAttemptLimit: 3)
        _ = try await store.saveProgress(attempt(progressing), owner: "w1", progress: 0.5, checkpoint: [4, 5], now: 33_200)
        #expect(try await store.job(lost).state == .pending)
        #expect(try await store.job(progressing).state == .running)

        // 9 handed off with a deadline, 10 handed off and completed by its carrier.
        let handedOff = try await store.add(job("carried", input: #"{"n":9}"#), now: 40_000)
        let carried = try await store.add(job("carried", input: #"{"n":10}"#), now: 40_000)
        _ = try await store.take("carried", limit: 2, now: 40_100)
        _ = try await store.handOff(
            attempt(handedOff), owner: "w1", to: HandOffRequest(carrier: "downloads", reference: "transfer-9", timeout: 5_000_000),
            now: 40_200)
        _ = try await store.handOff(
            attempt(carried), owner: "w1", to: HandOffRequest(carrier: "downloads", reference: "transfer-10", timeout: nil),
            now: 40_200)
        _ = try await store.saveProgress(attempt(carried), owner: nil, progress: 0.9, checkpoint: [9], now: 40_300)
        _ = try await store.completeHandOff(attempt(carried), outcome: .succeeded(output: #""carried""#), reporter: "downloads", now: 40_400)

        // 11 waits for a signal with a deadline; 12 waited, was woken by its signal, and runs again
        // with a step that recorded the signal.
        let waiting = try await store.add(job("signals", input: #"{"n":11}"#), now: 50_000)
        let woken = try await store.add(job("signals", input: #"{"n":12}"#), now: 50_000)
        _ = try await store.take("signals", limit: 2, now: 50_100)
        _ = try await store.waitForSignal(attempt(waiting), owner: "w1", name: "approved", timeout: 6_000_000, now: 50_200)
        _ = try await store.waitForSignal(attempt(woken), owner: "w1", name: "go", timeout: nil, now: 50_200)
        _ = try await store.signal(woken, name: "go", payload: #"{"by":"ops"}"#, now: 50_300)
        _ = try await store.take("signals", limit: 1, now: 50_400)
        _ = try await store.recordStep(
            StepRecord(job: woken, name: "charge", attempt: 1, output: #""paid""#, recordedAt: 50_500), attempt: attempt(woken),
            owner: "w1")

        // 13 due later; 14 waits for 15 (a dependency); 16 cancelled while waiting.
        _ = try await store.add(job("later", input: #"{"n":13}"#, runAt: 9_000_000), now: 60_000)
        let parent = try await store.add(job("graph", input: #"{"n":15}"#), now: 60_000)
        var dependent = job("graph", input: #"{"n":14}"#)
        dependent.dependencies = [Dependency("parent", on: parent)]
        _ = try await store.enqueue(dependent, now: 60_010)
        let cancelled = try await store.add(job("graph", input: #"{"n":16}"#), now: 60_020)
        _ = try await store.cancel(cancelled, now: 60_030)

        // A sequence with its first step done, and a concurrent group of three, one running.
        _ = try await store.enqueue(
            composition: .group(
                .sequence,
                [
                    .job(job("groups", input: #""s1""#), name: "first", takesPreviousOutput: false),
                    .job(job("groups", input: #""s2""#), name: "second", takesPreviousOutput: true),
                ], maxConcurrent: 0, name: "pipeline"), now: 70_000)
        let first = try await store.take("groups", limit: 1, now: 70_100)
        try await store.finish([FinishedAttempt(first[0].attemptID, owner: "w1", outcome: .succeeded(output: #""one""#))], now: 70_200)
        _ = try await store.enqueue(
            composition: .group(
                .concurrent, (1...3).map { .job(job("fan", input: "\($0)"), name: "c\($0)", takesPreviousOutput: false) },
                maxConcurrent: 2, name: "fan-out"), now: 70_300)
        _ = try await store.take("fan", limit: 1, now: 70_400)

        // A cache entry computed by its job, and a schedule.
        _ = try await store.cachedValue(namespace: "avatars", key: "user-1", job: job("cache", input: "1"), maxFailures: 3, now: 80_000)
        try await store.saveSchedule(
            ScheduleRecord(name: "nightly", job: job("cron", input: "{}"), rule: .cron("0 3 * * *", timeZone: "UTC"), nextTickAt: 90_000_000),
            now: 80_100)
        _ = debounced
    }
}
