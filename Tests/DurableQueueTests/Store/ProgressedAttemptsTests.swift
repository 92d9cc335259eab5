import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Attempts that saved a new checkpoint do not use up a job's attempts: it resumes further each time.
@Suite struct ProgressedAttemptsTests {
    private let boom = JobFailure(type: "Boom", message: "dropped", retryable: true)

    private func claim(_ store: any JobStore, at now: Int64) async throws -> ClaimedJob {
        try #require(try await store.claim(queue: "default", limit: 1, owner: "w1", leaseDuration: 1_000, now: now).first)
    }

    @Test(arguments: StoreBackend.all) func anAttemptThatSavedANewCheckpointDoesNotCount(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 2))
            // Attempt 1 gets further (a new checkpoint), then fails: it does not count.
            var attempt = try await claim(store, at: 1_000)
            #expect(try await store.saveProgress(attempt.attemptID, owner: "w1", progress: 0.3, checkpoint: [1], now: 1_001))
            #expect(try await store.saveProgress(attempt.attemptID, owner: "w1", progress: 0.4, checkpoint: [2], now: 1_002))
            try await store.finish([FinishedAttempt(attempt.attemptID, owner: "w1", outcome: .retry(boom, after: 0))], now: 1_003)
            #expect(try await store.job(id).state == .pending)
            // Attempt 2 saves the same checkpoint again (no progress): it counts; so does attempt 3.
            attempt = try await claim(store, at: 2_000)
            #expect(attempt.attempt == 2 && attempt.progressedAttempts == 1)
            #expect(try await store.saveProgress(attempt.attemptID, owner: "w1", progress: 0.4, checkpoint: [2], now: 2_001))
            try await store.finish([FinishedAttempt(attempt.attemptID, owner: "w1", outcome: .retry(boom, after: 0))], now: 2_002)
            #expect(try await store.job(id).state == .pending)
            attempt = try await claim(store, at: 3_000)
            try await store.finish([FinishedAttempt(attempt.attemptID, owner: "w1", outcome: .retry(boom, after: 0))], now: 3_001)
            let record = try await store.job(id)
            #expect(record.state == .failed && record.attempts == 3)
            #expect(try await store.history(of: id).last?.reason?.hasSuffix("(no attempts left)") == true)
        }
    }

    @Test(arguments: StoreBackend.all) func anInterruptedAttemptThatSavedProgressIsNotCountedWhenItsLeaseIsRecovered(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 1))
            let attempt = try await claim(store, at: 1_000)
            #expect(try await store.saveProgress(attempt.attemptID, owner: "w1", progress: nil, checkpoint: [7], now: 1_100))
            #expect(try await store.recoverExpiredLeases(now: 5_000).map(\.state) == [.pending])
            // The next attempt, killed without progress, was the last one allowed.
            _ = try await claim(store, at: 6_000)
            #expect(try await store.recoverExpiredLeases(now: 9_000).map(\.state) == [.failed])
            #expect(try await store.job(id).attempts == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func aReleasedAttemptTakesItsProgressMarkWithItAndARetryStartsAfresh(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 1))
            var attempt = try await claim(store, at: 1_000)
            #expect(try await store.saveProgress(attempt.attemptID, owner: "w1", progress: nil, checkpoint: [1], now: 1_001))
            _ = try await store.release([attempt.attemptID], owner: "w1", now: 1_002, reason: "shutdown")
            // The same attempt number again; its first new checkpoint counts as progress once more.
            attempt = try await claim(store, at: 2_000)
            #expect(attempt.attempt == 1 && attempt.progressedAttempts == 0)
            try await store.finish([FinishedAttempt(attempt.attemptID, owner: "w1", outcome: .retry(boom, after: 0))], now: 2_001)
            #expect(try await store.job(id).state == .failed)
            try await store.retry(id, now: 3_000)
            attempt = try await claim(store, at: 3_001)
            #expect(attempt.attempt == 1 && attempt.progressedAttempts == 0 && attempt.checkpoint == [1])
        }
    }
}
