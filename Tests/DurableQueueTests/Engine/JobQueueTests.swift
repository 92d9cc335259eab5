import DurableQueueTestSupport
import DurableQueueTesting
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

@Suite(.timeLimit(.minutes(1))) struct JobQueueTests {
    @Test(arguments: StoreBackend.all) func aJobRunsAndItsResultIsRecordedBeforeItIsReported(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Echo()) }) { queue in
            let handle = try await queue.enqueue(Echo.self, "hello", options: EnqueueOptions(tags: ["greeting"]))
            #expect(try await handle.result() == "hello")
            let record = try await queue.store.job(handle.id)
            #expect(record.state == .succeeded && record.output == "\"hello\"" && record.tags == ["greeting"])
            #expect(try await queue.store.transitions(handle.id) == ["nil>pending", "pending>running", "running>succeeded"])
        }
    }

    @Test(arguments: StoreBackend.all) func aJobOfAnUnregisteredTypeWaitsForAProcessThatKnowsIt(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        let knowsNothing = try await backend.queue(in: directory, configuration: configuration)
        knowsNothing.register(Flaky(retries: true))
        let handle = try await knowsNothing.enqueue(Echo.self, "waiting")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await knowsNothing.run() }
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await handle.state() == .pending)
            let knowsEcho = try await backend.queue(in: directory, configuration: configuration)
            knowsEcho.register(Echo())
            group.addTask { try await knowsEcho.run() }
            #expect(try await handle.result() == "waiting")
            group.cancelAll()
        }
    }

    @Test(arguments: StoreBackend.all) func anErrorTheJobDoesNotRetryFailsAtOnce(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Flaky(retries: false)) }) { queue in
            let handle = try await queue.enqueue(Flaky.self, 5, options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 5)))
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.code == .jobFailed)
            #expect(error?.message.contains("test failure") == true)
            let record = try await queue.store.job(handle.id)
            #expect(record.attempts == 1 && record.error?.retryable == false)
        }
    }

    @Test(arguments: StoreBackend.all) func retriesWaitTheirBackoffRecordedInTheRow(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Flaky(retries: true)) }) { queue in
            let start = time.now().millisecondsSince1970
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 3, backoff: .linear(initial: .seconds(5), increment: .seconds(10))))
            let handle = try await queue.enqueue(Flaky.self, 2, options: options)
            try await eventually("the first attempt failed") { try await handle.state() == .scheduled }
            #expect(try await queue.store.job(handle.id).runAt == start + 5_000)
            time.advance(by: .seconds(5))
            try await eventually("the second attempt failed") {
                let record = try await queue.store.job(handle.id)
                return record.attempts == 2 && record.state == .scheduled
            }
            #expect(try await queue.store.job(handle.id).runAt == start + 5_000 + 15_000)
            time.advance(by: .seconds(15))
            try await eventually("the third attempt ran") { try await handle.state() == .succeeded }
            #expect(try await handle.result() == 3)
        }
    }

    @Test(arguments: StoreBackend.all) func theDefaultBackoffIsStoredAsNullAndStillWaitsOneSecondOrSo(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Flaky(retries: true)) }) { queue in
            let start = time.now().millisecondsSince1970
            let handle = try await queue.enqueue(Flaky.self, 1)
            #expect(try await queue.store.job(handle.id).retryPolicy == nil)
            try await eventually("the first attempt failed") { try await handle.state() == .scheduled }
            // Exponential from 1 s with ±20% jitter.
            let runAt = try await queue.store.job(handle.id).runAt
            #expect((start + 800)...(start + 1_200) ~= runAt)
            time.advance(by: .milliseconds(1_200))
            #expect(try await handle.result() == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func retriesStopAtTheAttemptLimit(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Flaky(retries: true)) }) { queue in
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero)))
            let handle = try await queue.enqueue(Flaky.self, 10, options: options)
            await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(try await queue.store.job(handle.id).attempts == 2)
        }
    }

    @Test(arguments: StoreBackend.all) func aTimeoutCancelsTheAttemptAndCountsAsAFailure(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let tracker = RunTracker()
        let configuration = JobQueue.Configuration(pollInterval: .milliseconds(20), timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Blocking(tracker: tracker)) }) { queue in
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 1), timeout: .seconds(2))
            let handle = try await queue.enqueue(Blocking.self, "slow", options: options)
            try await eventually("the attempt started") { tracker.running == 1 }
            time.advance(by: .seconds(2))
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result() }
            #expect(error?.message.contains("timeout of 2000 ms") == true)
            #expect(tracker.running == 0)
            #expect(try await queue.store.job(handle.id).state == .failed)
        }
    }

    @Test(arguments: StoreBackend.all) func cancellingPendingRunningAndSuspendedJobs(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Blocking(tracker: tracker)) }) { queue in
            try await queue.queues.configure(QueueConfiguration("paused", isPaused: true))
            let waiting = try await queue.enqueue(Blocking.self, "in-paused", options: EnqueueOptions(queue: "paused", tags: ["t"]))
            let later = try await queue.enqueue(Blocking.self, "later", options: EnqueueOptions(delay: .seconds(3600)))
            let running = try await queue.enqueue(Blocking.self, "running")
            try await eventually("the job runs") { try await running.state() == .running }

            try await running.cancel()
            let error = await #expect(throws: DurableQueueError.self) { try await running.result() }
            #expect(error?.code == .cancelled)
            #expect(try await queue.jobs.cancel(JobSelection(tag: "t")) == 1)
            try await later.cancel()
            for handle in [waiting, later, running] { #expect(try await handle.state() == .cancelled) }
            #expect(tracker.startedInputs == ["running"])
            try await queue.queues.resume("paused")
            try await Task.sleep(for: .milliseconds(100))
            #expect(tracker.startedInputs == ["running"])
        }
    }

    @Test(arguments: StoreBackend.all) func theConcurrencyLimitAndPriorityOrderHold(_ backend: StoreBackend) async throws {
        let tracker = RunTracker()
        try await withRunningQueue(on: backend, register: { $0.register(Blocking(tracker: tracker)) }) { queue in
            try await queue.queues.configure(QueueConfiguration("two", concurrencyLimit: 2, isPaused: true))
            var handles: [JobHandle<Blocking>] = []
            for (name, priority) in [("a", Priority.low), ("b", .normal), ("c", .high), ("d", .normal), ("e", .high)] {
                handles.append(try await queue.enqueue(Blocking.self, name, options: EnqueueOptions(queue: "two", priority: priority)))
            }
            try await queue.queues.resume("two")
            try await eventually("two jobs run") { tracker.running == 2 }
            #expect(Set(tracker.startedInputs) == ["c", "e"])
            for started in 3...5 {
                let running = try await queue.store.jobs(JobFilter(state: .running)).filter { !$0.cancelRequested }
                try await queue.jobs.cancel(try #require(running.first).id)
                try await eventually("job \(started) starts") { tracker.startedInputs.count == started }
            }
            #expect(tracker.startedInputs.suffix(3) == ["b", "d", "a"])
            #expect(tracker.peak == 2)
            try await queue.jobs.cancel(JobSelection())
        }
    }

    @Test(arguments: StoreBackend.all) func stateChangesStreamFromCurrentToTerminal(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend, register: { $0.register(Echo()) }) { queue in
            try await queue.queues.configure(QueueConfiguration("held", isPaused: true))
            let handle = try await queue.enqueue(Echo.self, "x", options: EnqueueOptions(queue: "held"))
            var states: [JobState] = []
            for try await state in handle.stateChanges {
                states.append(state)
                if state == .pending { try await queue.queues.resume("held") }
            }
            #expect(states.first == .pending)
            #expect(states.last == .succeeded)
        }
    }

    @Test(arguments: StoreBackend.all) func waitingForAResultCanTimeOutWithoutCancellingTheJob(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend) { queue async throws in
            let handle = try await queue.enqueue(Echo.self, "nobody runs me")
            let error = await #expect(throws: DurableQueueError.self) { try await handle.result(timeout: .milliseconds(50)) }
            #expect(error?.code == .timedOut)
            #expect(try await handle.state() == .pending)
        }
    }

    @Test(arguments: StoreBackend.all) func progressAndCheckpointsReachTheRowAndTheNextAttempt(_ backend: StoreBackend) async throws {
        struct Resumable: Job {
            static let name = "resumable"
            func run(_ input: Int, context: JobContext) async throws -> [UInt8] {
                if context.attempt == 1 {
                    try await context.save(progress: 0.5, checkpoint: [7, 7])
                    throw TestFailure()
                }
                return context.checkpoint ?? []
            }
        }
        try await withRunningQueue(on: backend, register: { $0.register(Resumable()) }) { queue in
            let options = EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero)))
            let handle = try await queue.enqueue(Resumable.self, 1, options: options)
            #expect(try await handle.result() == [7, 7])
            #expect(try await queue.store.job(handle.id).progress == 0.5)
        }
    }

    @Test(arguments: StoreBackend.all) func badOptionsAreRefusedBeforeAnythingIsWritten(_ backend: StoreBackend) async throws {
        try await withRunningQueue(on: backend) { queue async throws in
            for options in [EnqueueOptions(delay: .seconds(-1)), EnqueueOptions(timeout: .zero), EnqueueOptions(queue: "")] {
                let error = await #expect(throws: DurableQueueError.self) { try await queue.enqueue(Echo.self, "x", options: options) }
                #expect(error?.code == .invalidArgument)
            }
            #expect(try await queue.store.jobs(JobFilter()).isEmpty)
        }
        #expect(throws: DurableQueueError.self) {
            try JobQueue(path: "/nonexistent/x.sqlite", configuration: JobQueue.Configuration(heartbeatInterval: .seconds(60)))
        }
    }

    @Test(arguments: StoreBackend.all) func finishedJobsArePrunedAfterTheirRetention(_ backend: StoreBackend) async throws {
        let time = ManualClock()
        let configuration = JobQueue.Configuration(
            pollInterval: .milliseconds(20), retention: JobQueue.Retention(succeeded: .seconds(3600), interval: .seconds(60)),
            timeSource: time)
        try await withRunningQueue(on: backend, configuration: configuration, register: { $0.register(Echo()) }) { queue in
            let handle = try await queue.enqueue(Echo.self, "old")
            _ = try await handle.result()
            time.advance(by: .seconds(1800))
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await handle.state() == .succeeded)
            time.advance(by: .seconds(1860))
            try await eventually("the job is pruned") { try await queue.store.jobs(JobFilter()).isEmpty }
            let error = await #expect(throws: DurableQueueError.self) { try await handle.state() }
            #expect(error?.code == .jobNotFound)
        }
    }
}
