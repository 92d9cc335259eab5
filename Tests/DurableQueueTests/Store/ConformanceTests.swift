import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// One scenario that goes through every rule the stores share (endings and retries, lease
/// recovery, cancels waiting and running, retry by hand, unique keys kept, debounced and replaced,
/// a sequence stopped by a failing step, a concurrent group under its limit) leaves the same
/// history on every backend: the same states, reasons, attempts and workers for every job, and the
/// same outcome for every group. The rules are the core's (`Sources/DurableQueueCore/Rules`); a store
/// only reads their inputs and writes what they decide.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)))
struct ConformanceTests {
    @Test func everyBackendWritesTheSameHistoryForTheSameScenario() async throws {
        var results: [String: [String]] = [:]
        for backend in StoreBackend.all {
            results[backend.name] = try await withStore(backend) { store, _ in try await scenario(store) }
        }
        let sqlite = try #require(results[StoreBackend.sqlite.name])
        let postgres = try #require(results[StoreBackend.postgres.name])
        #expect(sqlite == postgres, "SQLite:\n\(sqlite.joined(separator: "\n"))\nPostgreSQL:\n\(postgres.joined(separator: "\n"))")
        // The scenario reached every rule it is meant to compare.
        let text = sqlite.joined(separator: "\n")
        for expected in [
            "running>scheduled 1 Boom: boom (will retry)", "; no attempts left", "(lease expired)", "retry requested after 2 attempt(s)", "running>running 1 cancel requested",
            "debounced: input replaced", UniqueKeyRule.replacedReason, "an earlier step of sequence", "group failed: step 2 failed",
            "group succeeded: - {\"c1\":\"done\"", "its turn in group",
            "cache: computing by job 6, enqueued true", "cache: computing by job 6, enqueued false", "cache: failed 1 time(s): boom",
        ] {
            #expect(text.contains(expected), "the scenario never wrote '\(expected)'")
        }
    }

    /// Runs the scenario on `store` with a clock of its own; every job's history (in enqueue order,
    /// jobs named by that order) and every group's outcome, as lines.
    private func scenario(_ store: any JobStore) async throws -> [String] {
        var ids: [JobID] = []
        func add(_ new: NewJob, at now: Int64) async throws -> JobID {
            let id = try await store.enqueue(new, now: now).id
            if !ids.contains(id) { ids.append(id) }
            return id
        }
        let failure = JobFailure(type: "Boom", message: "boom", retryable: true)

        // Endings, a retry that uses up the attempts, a lease that expires.
        let a = try await add(job(input: "{\"n\":1}", maxAttempts: 2), at: 1_000)
        let b = try await add(job(input: "{\"n\":2}", maxAttempts: 2), at: 1_000)
        let c = try await add(job(input: "{\"n\":3}", maxAttempts: 1), at: 1_000)
        #expect(try await store.take(limit: 3, now: 2_000).map(\.id) == [a, b, c])
        try await store.finish(
            [
                FinishedAttempt(.first(a), owner: "w1", outcome: .succeeded(output: "{\"ok\":true}")),
                FinishedAttempt(.first(b), owner: "w1", outcome: .retry(failure, after: 400)),
            ], now: 2_100)
        _ = try await store.recoverExpiredLeases(now: 40_000)  // c's lease ran out at 32,000: its only attempt is spent
        #expect(try await store.take(limit: 1, now: 40_100).map(\.id) == [b])
        try await store.finish([FinishedAttempt(AttemptID(job: b, number: 2), owner: "w1", outcome: .retry(failure, after: 800))], now: 40_200)
        try await store.retry(b, now: 40_300)

        // Cancels: of a waiting job, of a running one (flagged, then its ending), and of a finished one.
        let d = try await add(job(input: "{\"n\":4}"), at: 41_000)
        _ = try await store.cancel(d, now: 41_100)
        let running = try await store.take(limit: 1, now: 41_200)  // b again
        _ = try await store.cancel(b, now: 41_300)
        _ = try await store.cancel(b, now: 41_310)  // flagged already: nothing more
        try await store.finish(
            running.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .cancelled(reason: "cancelled while running")) }, now: 41_400)
        _ = try await store.cancel(a, now: 41_500)

        // Unique keys: kept, debounced while waiting, replaced.
        let k = try await add(job(input: "{\"v\":1}", runAt: 60_000, uniqueKey: "k", policy: .debounce), at: 42_000)
        _ = try await add(job(input: "{\"v\":2}", runAt: 61_000, uniqueKey: "k", policy: .debounce), at: 42_100)
        _ = try await add(job(input: "{\"v\":3}", uniqueKey: "k", policy: .keep), at: 42_200)
        _ = try await add(job(input: "{\"v\":4}", uniqueKey: "k", policy: .replace), at: 42_300)
        #expect(ids.contains(k))

        // A sequence whose second step fails, and a concurrent group of three, two at a time.
        let sequence = try await store.enqueue(
            composition: .group(
                .sequence, (1...3).map { .job(job("seq", input: "{\"s\":\($0)}"), name: nil, takesPreviousOutput: $0 > 1) }, maxConcurrent: 0,
                name: "steps"),
            now: 50_000)
        let first = try await store.take("seq", now: 50_100)
        try await store.finish(first.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .succeeded(output: "1")) }, now: 50_200)
        let second = try await store.take("seq", now: 50_300)
        try await store.finish(second.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .failed(failure)) }, now: 50_400)
        let group = try await store.enqueue(
            composition: .group(
                .concurrent, (1...3).map { .job(job("fan", input: "{\"g\":\($0)}"), name: "c\($0)", takesPreviousOutput: false) },
                maxConcurrent: 2, name: "fan"),
            now: 51_000)
        for round in 0..<3 {
            let now = 51_100 + Int64(round) * 100
            let taken = try await store.take("fan", limit: 3, now: now)
            try await store.finish(taken.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .succeeded(output: "\"done\"")) }, now: now + 50)
        }

        // The results cache: computed by a job that fails, then failed as often as allowed.
        var lookups: [CacheLookup] = []
        let cacheJob = job("cache", input: "{\"c\":1}", maxAttempts: 1)
        lookups.append(try await store.cachedValue(namespace: "ns", key: "k", job: cacheJob, maxFailures: 1, now: 52_000))
        lookups.append(try await store.cachedValue(namespace: "ns", key: "k", job: cacheJob, maxFailures: 1, now: 52_010))
        let computing = try await store.take("cache", now: 52_100)
        try await store.finish(computing.map { FinishedAttempt($0.attemptID, owner: "w1", outcome: .failed(failure)) }, now: 52_200)
        lookups.append(try await store.cachedValue(namespace: "ns", key: "k", job: cacheJob, maxFailures: 1, now: 52_300))

        for record in try await store.jobs(JobFilter(limit: 100)) where !ids.contains(record.id) { ids.append(record.id) }
        var lines: [String] = []
        for lookup in lookups {
            switch lookup {
            case .computing(let id, let enqueued): lines.append("cache: computing by job \(ids.firstIndex(of: id) ?? -1), enqueued \(enqueued)")
            case .complete(let output): lines.append("cache: complete \(canonicalJSON(output) ?? "-")")
            case .failed(let error, let failures): lines.append("cache: failed \(failures) time(s): \(error?.message ?? "-")")
            }
        }
        for (index, id) in ids.enumerated() {
            for event in try await store.history(of: id) {
                lines.append(
                    "job \(index): \(event.from?.rawValue ?? "nil")>\(event.to.rawValue) \(event.attempt) \(event.reason ?? "-")"
                        + " [\(event.worker ?? "-")] at \(event.at)")
            }
        }
        for id in [sequence, group] {
            let result = try await store.groupResult(id)
            lines.append("group \(result.state.rawValue): \(result.reason ?? "-") \(canonicalJSON(result.output) ?? "-")")
        }
        return lines
    }
}
