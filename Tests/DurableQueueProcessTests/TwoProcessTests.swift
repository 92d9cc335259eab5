import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite struct TwoProcessTests {
    @Test(.timeLimit(.minutes(2)), arguments: StoreBackend.all)
    func anotherProcessWritingNeverSurfacesALockError(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let count = 400
        let worker = try WorkerProcess(["enqueue", path, String(count)])
        #expect(await worker.waitForLine("ready"))

        // While the other process enqueues, this one reads, claims and finishes as fast as it can.
        var finished = 0
        var rounds = 0
        while finished < count && rounds < 200_000 {
            rounds += 1
            _ = try await store.counts()
            let claimed = try await store.claim(queue: "shared", limit: 8, owner: "test", leaseDuration: 60_000, now: 1)
            try await store.finish(claimed.map { FinishedAttempt($0.attemptID, owner: "test", outcome: .succeeded(output: "0")) }, now: 2)
            finished += claimed.count
            if claimed.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(await worker.waitForExit() == 0)
        #expect(finished == count)
        let counts = try #require(try await store.queueStatuses().first { $0.configuration.name == "shared" }?.counts)
        #expect(counts[.succeeded] == count)
        #expect(try await store.historyIsConsistent())
    }
}
