import DurableQueueCore
import Foundation

/// The SQLite file as a ``JobStore``.
///
/// Most requirements are the actor's own methods (a call hops onto its queue). The calls the engine
/// makes all the time run through ``SQLiteJobStore/perform(_:)``: at once on the caller's thread when
/// nothing else uses the store and SQLite need not wait for another process's lock.
extension SQLiteJobStore: JobStore {
    package nonisolated var location: String { path }

    package nonisolated var directory: String? { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    package nonisolated func enqueue(_ jobs: [NewJob], now: Int64) async throws -> [EnqueueOutcome] {
        try await perform { try $0.enqueue(batch: jobs, now: now) }
    }

    package nonisolated func claim(_ request: ClaimRequest) async throws -> [ClaimedJob] {
        try await perform { try $0.claimJobs(request) }
    }

    package nonisolated func finish(_ endings: [FinishedAttempt], now: Int64, thenClaim next: ClaimRequest?) async throws
        -> FinishResult
    {
        try await perform { try $0.finishAttempts(endings, now: now, thenClaim: next) }
    }

    package nonisolated func nextWakeTime(after now: Int64) async throws -> Int64? {
        try await perform { try $0.earliestWake(after: now) }
    }

    package nonisolated func count(_ filter: JobFilter) async throws -> Int {
        try await perform { try $0.countJobs(filter) }
    }
}
