import DurableQueueTestSupport
import Foundation
import Metrics
import MetricsTestKit
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The metrics backend for this test process, bootstrapped once (swift-metrics allows one bootstrap).
/// Other tests' jobs report to it too, so each test looks only at its own queue's dimensions.
private let testMetrics: TestMetrics = {
    let metrics = TestMetrics()
    MetricsSystem.bootstrap(metrics)
    return metrics
}()

@Suite(.timeLimit(.minutes(1))) struct MetricsTests {
    @Test(arguments: StoreBackend.all) func everyOutcomeIsCountedAndTimedPerQueueAndKind(_ backend: StoreBackend) async throws {
        let metrics = testMetrics
        let name = "metrics-\(UUID().uuidString)"
        let tracker = RunTracker()
        let configuration = JobQueue.Configuration(
            pollInterval: .milliseconds(20), retention: .init(interval: .milliseconds(20)))
        try await withRunningQueue(on: backend, configuration: configuration, register: {
            $0.register(Flaky(retries: true))
            $0.register(Blocking(tracker: tracker))
        }) { queue in
            let options = EnqueueOptions(queue: name, retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero)))
            let retriedOnce = try await queue.enqueue(Flaky.self, 1, options: options)
            #expect(try await retriedOnce.result() == 2)
            let failing = try await queue.enqueue(Flaky.self, 5, options: options)
            await #expect(throws: DurableQueueError.self) { try await failing.result() }
            let blocking = try await queue.enqueue(Blocking.self, "b", options: options)
            try await eventually("the blocking job runs") { try await blocking.state() == .running }
            try await blocking.cancel()
            try await eventually("the blocking job stopped") { try await blocking.state() == .cancelled }
            var waiting = options
            waiting.delay = .seconds(3600)
            _ = try await queue.enqueue(Flaky.self, 0, options: waiting)

            let flaky = [("queue", name), ("kind", Flaky.name)]
            try await eventually("every attempt is counted") {
                metrics.counterTotal(label: JobMetrics.Name.started, dimensions: flaky) == 4
                    && metrics.counterTotal(label: JobMetrics.Name.cancelled, dimensions: [("queue", name), ("kind", Blocking.name)]) == 1
                    && (try? metrics.expectGauge(JobMetrics.Name.queueDepth, [("queue", name)]).lastValue) == 1
            }
            #expect(metrics.counterTotal(label: JobMetrics.Name.succeeded, dimensions: flaky) == 1)
            #expect(metrics.counterTotal(label: JobMetrics.Name.retried, dimensions: flaky) == 2)
            #expect(metrics.counterTotal(label: JobMetrics.Name.failed, dimensions: flaky) == 1)
            #expect(try metrics.expectTimer(JobMetrics.Name.runTime, flaky).values.count == 4)
            #expect(try metrics.expectTimer(JobMetrics.Name.waitTime, flaky).values.count == 4)
        }
    }

    @Test(arguments: StoreBackend.all) func aPoisonJobIsCountedWhenRecoveryFailsIt(_ backend: StoreBackend) async throws {
        let metrics = testMetrics
        let name = "poison-\(UUID().uuidString)"
        var configuration = JobQueue.Configuration(
            leaseDuration: .milliseconds(400), heartbeatInterval: .milliseconds(100), pollInterval: .milliseconds(20))
        configuration.lostAttemptLimit = 1
        try await withRunningQueue(on: backend, configuration: configuration) { queue in
            // A job of a kind this process does not run, claimed by a worker that is gone: its lease
            // runs out, and this engine's recovery fails it at once (a limit of one lost attempt).
            let now = queue.now
            let id = try await queue.store.enqueue(NewJob(queue: name, kind: "crasher", input: "{}", maxAttempts: nil), now: now).id
            let request = ClaimRequest(owner: "gone", leaseDuration: 1, now: now, room: 1, kinds: ["crasher"], queues: [name])
            #expect(try await queue.store.claim(request).map(\.id) == [id])
            let dimensions = [("queue", name), ("kind", "crasher")]
            try await eventually("the poison job is counted") {
                metrics.counterTotal(label: JobMetrics.Name.poisoned, dimensions: dimensions) == 1
            }
            #expect(try await queue.store.job(id).error?.type == LostAttempts.poisonFailureType)
        }
    }
}
