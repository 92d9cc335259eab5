import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct FinishTests {
    private let boom = JobFailure(type: "Boom", message: "it broke", retryable: true)

    @Test(arguments: StoreBackend.all) func successStoresTheOutputAndEndsTheLease(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take()
            let states = try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .succeeded(output: #"{"ok":true}"#))], now: 3_000)
            #expect(states == [id: .succeeded])
            let record = try await store.job(id)
            #expect(record.state == .succeeded && canonicalJSON(record.output) == #"{"ok":true}"# && record.finishedAt == 3_000)
            #expect(record.leaseOwner == nil && record.leaseExpiresAt == nil)
            #expect(try await store.transitions(id) == ["nil>pending", "pending>running", "running>succeeded"])
        }
    }

    @Test(arguments: StoreBackend.all) func aRetryWaitsForItsTimeAndKeepsItsAttempts(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 3))
            _ = try await store.take(now: 1_000)
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .retry(boom, after: 2_000))], now: 2_000)
            let record = try await store.job(id)
            #expect(record.state == .scheduled && record.runAt == 4_000 && record.attempts == 1 && record.finishedAt == nil)
            #expect(record.error == boom)
            #expect(try await store.take(now: 3_999).isEmpty)
            #expect(try await store.take(now: 4_000).first?.attempt == 2)
            #expect(try await store.transitions(id) == ["nil>pending", "pending>running", "running>scheduled", "scheduled>pending", "pending>running"])
        }
    }

    @Test(arguments: StoreBackend.all) func aRetryDueNowGoesStraightBackToPending(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take(now: 1_000)
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .retry(boom, after: 0))], now: 2_000)
            #expect(try await store.job(id).state == .pending)
        }
    }

    @Test(arguments: StoreBackend.all) func aRetryAfterTheLastAttemptFails(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: 2))
            for now in [Int64(1_000), 2_000] {
                let claimed = try await store.take(now: now)[0]
                try await store.finish([FinishedAttempt(claimed.attemptID, owner: "w1", outcome: .retry(boom, after: 0))], now: now)
            }
            let record = try await store.job(id)
            #expect(record.state == .failed && record.attempts == 2 && record.finishedAt == 2_000)
            #expect(try await store.history(of: id).last?.reason?.contains("no attempts left") == true)
        }
    }

    @Test(arguments: StoreBackend.all) func unlimitedAttemptsKeepRetrying(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job(maxAttempts: nil))
            for now in Int64(1)...10 {
                let claimed = try await store.take(now: now)[0]
                try await store.finish([FinishedAttempt(claimed.attemptID, owner: "w1", outcome: .retry(boom, after: 0))], now: now)
            }
            let record = try await store.job(id)
            #expect(record.state == .pending && record.attempts == 10)
        }
    }

    @Test(arguments: StoreBackend.all) func aReportFromAWorkerThatLostTheLeaseIsIgnored(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take(owner: "old")
            let states = try await store.finish([FinishedAttempt(.first(id), owner: "someone-else", outcome: .succeeded(output: "1"))], now: 2)
            #expect(states.isEmpty)
            #expect(try await store.job(id).state == .running)
        }
    }

    @Test(arguments: StoreBackend.all) func severalOutcomesCommitTogether(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let ids = try await store.enqueue(batch: (0..<3).map { _ in job() }, now: 1).map(\.id)
            _ = try await store.take(limit: 3)
            let states = try await store.finish(
                [
                    FinishedAttempt(.first(ids[0]), owner: "w1", outcome: .succeeded(output: "0")),
                    FinishedAttempt(.first(ids[1]), owner: "w1", outcome: .failed(boom)),
                    FinishedAttempt(.first(ids[2]), owner: "w1", outcome: .retry(boom, after: 8_000)),
                ], now: 2_000)
            #expect(states == [ids[0]: .succeeded, ids[1]: .failed, ids[2]: .scheduled])
            #expect(try await store.historyIsConsistent())
        }
    }

    /// More jobs than one multi-row statement takes (32 on SQLite): every claim and ending still
    /// lands on its own row, with its own history rows in order.
    @Test(arguments: StoreBackend.all) func seventyClaimsAndEndingsInOneCallEachChangeTheirOwnRow(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let ids = try await store.enqueue(batch: (0..<70).map { job(input: "{\"n\":\($0)}") }, now: 1).map(\.id)
            let claimed = try await store.take(limit: 70, now: 1_000)
            #expect(claimed.map(\.id) == ids && claimed.allSatisfy { $0.attempt == 1 && $0.leaseExpiresAt == 31_000 })
            for id in ids {
                let record = try await store.job(id)
                #expect(record.state == .running && record.attempts == 1 && record.startedAt == 1_000)
            }
            let endings = claimed.enumerated().map { index, job in
                FinishedAttempt(
                    job.attemptID, owner: "w1",
                    outcome: index % 3 == 0 ? .succeeded(output: "\(index)") : index % 3 == 1 ? .failed(boom) : .retry(boom, after: 7_000))
            }
            let states = try await store.finish(endings, now: 2_000)
            for (index, id) in ids.enumerated() {
                let expected: JobState = index % 3 == 0 ? .succeeded : index % 3 == 1 ? .failed : .scheduled
                #expect(states[id] == expected)
                #expect(try await store.transitions(id) == ["nil>pending", "pending>running", "running>\(expected.rawValue)"])
                if expected == .succeeded { #expect(try await store.job(id).output == "\(index)") }
            }
            #expect(try await store.historyIsConsistent())
        }
    }

    /// The same attempt reported twice in one call (as by two recorders) ends the job once: the
    /// second report sees the job no longer running and is only noted as discarded.
    @Test(arguments: StoreBackend.all) func oneAttemptReportedTwiceInOneCallEndsTheJobOnce(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            let attempt = try #require(try await store.take().first).attemptID
            let states = try await store.finish(
                [
                    FinishedAttempt(attempt, owner: "w1", outcome: .succeeded(output: "1")),
                    FinishedAttempt(attempt, owner: "w1", outcome: .failed(boom)),
                ], now: 2_000)
            #expect(states == [id: .succeeded])
            #expect(try await store.job(id).state == .succeeded)
            #expect(try await store.transitions(id) == ["nil>pending", "pending>running", "running>succeeded", "succeeded>succeeded"])
        }
    }

    /// A worker that lost its job reports its end after the job was taken over, finished and
    /// deleted: nothing is recorded for it, and the claim made with the ending goes on.
    @Test(arguments: StoreBackend.all) func anEndingOfAJobDeletedMeanwhileRecordsNothingAndTheClaimGoesOn(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let lost = try await store.add(job(), now: 1)
            let next = try await store.add(job(), now: 2)
            let stale = try #require(try await store.take(owner: "w1", now: 1_000).first)
            #expect(try await store.recoverExpiredLeases(now: 40_000).map(\.id) == [lost])
            let retaken = try #require(try await store.take(owner: "w2", now: 40_001).first)
            #expect(retaken.id == lost)
            try await store.finish([FinishedAttempt(retaken.attemptID, owner: "w2", outcome: .succeeded(output: "1"))], now: 40_002)
            #expect(try await store.apply(.delete, to: [lost], reason: "test", now: 40_003) == [lost: .succeeded])

            let request = ClaimRequest(owner: "w1", leaseDuration: 30_000, now: 40_004, room: 1, kinds: RunnableKinds(testKinds), queues: ["default"])
            let result = try await store.finish(
                [FinishedAttempt(stale.attemptID, owner: "w1", outcome: .succeeded(output: "2"))], now: 40_004, thenClaim: request)
            #expect(result.states.isEmpty && result.claimed.map(\.id) == [next], "\(result)")
        }
    }

    @Test(arguments: StoreBackend.all) func progressAndCheckpointAreSavedOnlyByTheLeaseHolder(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store, _ async throws in
            let id = try await store.add(job())
            _ = try await store.take()
            #expect(try await store.saveProgress(.first(id), owner: "w1", progress: 0.5, checkpoint: [1, 2, 3], now: 2))
            #expect(try await !store.saveProgress(.first(id), owner: "w2", progress: 0.9, checkpoint: nil, now: 3))
            let record = try await store.job(id)
            #expect(record.progress == 0.5 && record.checkpoint == [1, 2, 3])
            let error = await #expect(throws: DurableQueueError.self) {
                try await store.saveProgress(.first(id), owner: "w1", progress: 1.5, checkpoint: nil, now: 4)
            }
            #expect(error?.code == .invalidArgument)
            // A retried attempt receives the checkpoint.
            try await store.finish([FinishedAttempt(.first(id), owner: "w1", outcome: .retry(boom, after: 0))], now: 5)
            #expect(try await store.take(now: 5).first?.checkpoint == [1, 2, 3])
        }
    }
}
