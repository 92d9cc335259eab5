import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// What the history says, judged from the history alone (no handler logs), with two engines on one
/// store as two processes would run: each job's rows never go back in time, and what had to
/// happen after something is stamped after it.
@Suite(.timeLimit(.minutes(2))) struct HistoryOrderTests {
    /// The times of `id`'s history, which never go back.
    private func history(of id: JobID, in store: any JobStore) async throws -> [JobEvent] {
        let events = try await store.history(of: id)
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(later.at >= earlier.at, "job \(id)'s history goes back \(earlier.at - later.at) ms: \(events)")
        }
        return events
    }

    @Test(arguments: StoreBackend.all) func twoEnginesOnAQueueOfOneAtATimeShowOneSpanAtATime(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        let queues = [try await backend.queue(in: directory, configuration: configuration), try await backend.queue(in: directory, configuration: configuration)]
        for queue in queues { queue.register(Echo()) }
        try await queues[0].queues.configure(QueueConfiguration("one", concurrencyLimit: 1))
        let handles = try await queues[0].enqueue(Echo.self, batch: (0..<30).map { "\($0)" }, options: EnqueueOptions(queue: "one"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for queue in queues { group.addTask { try await queue.run() } }
            for handle in handles { _ = try await handle.result() }
            group.cancelAll()
        }
        let store = queues[0].store
        var spans: [(job: JobID, start: Int64, end: Int64)] = []
        for handle in handles {
            let events = try await history(of: handle.id, in: store)
            let start = try #require(events.last(where: { $0.to == .running }))
            let end = try #require(events.last)
            #expect(end.to == .succeeded)
            spans.append((handle.id, start.at, end.at))
        }
        spans.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        for (earlier, later) in zip(spans, spans.dropFirst()) {
            #expect(
                later.start >= earlier.end,
                "job \(later.job) starts \(earlier.end - later.start) ms before job \(earlier.job) ends, on a queue of one job at a time")
        }
    }

    @Test(arguments: StoreBackend.all) func aRetryAndADependentStartAfterWhatTheyWaitFor(_ backend: StoreBackend) async throws {
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Flaky(retries: true)) }) { queue in
            let retry = RetryPolicy(maxAttempts: 3, backoff: .constant(.milliseconds(300)))
            let first = try await queue.enqueue(Flaky.self, 1, options: EnqueueOptions(retry: retry))
            var options = EnqueueOptions()
            options.dependsOn = [Dependency("first", on: first)]
            let dependent = try await queue.enqueue(Flaky.self, 0, options: options)
            #expect(try await dependent.result() == 1)
            let firstEvents = try await history(of: first.id, in: queue.store)
            let failed = try #require(firstEvents.first(where: { $0.from == .running && $0.to == .scheduled }))
            let rerun = try #require(firstEvents.last(where: { $0.to == .running }))
            #expect(rerun.at >= failed.at + 300, "the retry starts \(rerun.at - failed.at) ms after the failure, with a 300 ms backoff")
            let succeeded = try #require(firstEvents.last)
            let dependentStart = try #require(try await history(of: dependent.id, in: queue.store).first(where: { $0.to == .running }))
            #expect(dependentStart.at >= succeeded.at, "the dependent starts \(succeeded.at - dependentStart.at) ms before its dependency ends")
        }
    }
}
