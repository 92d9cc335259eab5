import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The engine on a queue throttled per key: it starts each key's jobs an interval apart, other
/// keys meanwhile, and wakes for a key's next start; jobs enqueued in one batch, each with its key.
@Suite(.timeLimit(.minutes(1))) struct KeyThrottledEngineTests {
    @Test(arguments: StoreBackend.all) func theEngineStartsEachKeysJobsAnIntervalApartAndWakesForTheNext(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            try await queue.queues.configure(QueueConfiguration("api", keyThrottle: Throttle(.milliseconds(500))))
            let start = time.now().millisecondsSince1970
            let handles = try await queue.enqueue(
                Echo.self,
                batch: [("a1", "a"), ("b1", "b"), ("a2", "a")].map { ($0.0, EnqueueOptions(queue: "api", partitionKey: $0.1)) })
            #expect(try await handles[0].result() == "a1")
            #expect(try await handles[1].result() == "b1")
            #expect(try await handles[2].state() == .pending, "a's next start is 500 ms after its first")
            #expect(try await queue.store.job(handles[2].id).partitionKey == "a")
            time.advance(by: .milliseconds(500))
            #expect(try await handles[2].result() == "a2")
            let starts = try await handles.asyncMap { try await startTimes(of: $0.id, queue.store) }
            #expect(starts == [[start], [start], [start + 500]])
        }
    }

    @Test(arguments: StoreBackend.all) func aBatchWithOptionsPerJobIsAllOrNothing(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try await backend.queue(in: directory)
        await #expect(throws: DurableQueueError.self) {
            _ = try await queue.enqueue(Echo.self, batch: [("ok", EnqueueOptions()), ("bad", EnqueueOptions(delay: .seconds(-1)))])
        }
        #expect(try await queue.store.count(JobFilter()) == 0)
    }
}

/// The times job `id` started running, from its history.
private func startTimes(of id: JobID, _ store: any JobStore) async throws -> [Int64] {
    try await store.history(of: id).filter { $0.to == .running && $0.from != .running }.map(\.at)
}
