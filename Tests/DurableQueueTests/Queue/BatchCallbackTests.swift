import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Succeeds, or fails for good when its input is true.
private struct MaybeFail: Job {
    static let name = "maybe-fail"
    func run(_ fails: Bool, context: JobContext) async throws -> Int {
        if fails { throw TestFailure() }
        return context.attempt
    }
    func shouldRetry(after error: any Error) -> Bool { false }
}

/// A batch's callback: returns the batch's summary.
private struct Summarize: Job {
    static let name = "summarize"
    func run(_ input: String, context: JobContext) async throws -> BatchSummary { try await context.batchSummary() }
}

@Suite(.timeLimit(.minutes(2))) struct BatchCallbackTests {
    private func running(_ backend: StoreBackend, _ body: (JobQueue) async throws -> Void) async throws {
        try await withRunningQueue(
            on: backend, configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)),
            register: {
                $0.register(MaybeFail())
                $0.register(Summarize())
            }, body)
    }

    @Test(arguments: StoreBackend.all) func onCompleteReadsTheCountsAndFailedIDsAndOnSuccessIsCancelledByAFailure(_ backend: StoreBackend) async throws {
        try await running(backend) { queue in
            let batch = try await queue.enqueue(
                MaybeFail.self, batch: [false, false, true, false], options: EnqueueOptions(queue: "work"),
                callbacks: BatchCallbacks(
                    onSuccess: .job(Summarize.self, "success", options: EnqueueOptions(queue: "callbacks")),
                    onComplete: .job(Summarize.self, "complete", options: EnqueueOptions(queue: "callbacks"))))
            #expect(batch.jobs.count == 4)
            let complete = queue.handle(Summarize.self, id: try #require(batch.onComplete))
            let summary = try await complete.result(timeout: .seconds(10))
            #expect(summary == BatchSummary(total: 4, succeeded: 3, failed: [batch.jobs[2]], cancelled: []))
            let success = queue.handle(Summarize.self, id: try #require(batch.onSuccess))
            #expect(try await success.state() == .cancelled)
            #expect(try await queue.store.history(of: success.id).last?.reason == "dependency 'batch-2' (job \(batch.jobs[2])) failed")
            // The callback started after every job of the batch had ended.
            let lastEnd = try await batch.jobs.asyncMap { try await queue.store.job($0).finishedAt ?? .max }.max() ?? .max
            #expect(try await queue.store.job(complete.id).startedAt ?? 0 >= lastEnd)
        }
    }

    @Test(arguments: StoreBackend.all) func onSuccessRunsOnceEveryJobSucceeded(_ backend: StoreBackend) async throws {
        try await running(backend) { queue in
            let batch = try await queue.enqueue(
                MaybeFail.self, batch: Array(repeating: false, count: 6),
                callbacks: BatchCallbacks(onSuccess: .job(Summarize.self, "success")))
            #expect(batch.onComplete == nil)
            let success = queue.handle(Summarize.self, id: try #require(batch.onSuccess))
            #expect(try await success.result(timeout: .seconds(10)) == BatchSummary(total: 6, succeeded: 6, failed: [], cancelled: []))
        }
    }

    @Test func anEmptyBatchOrOneWithoutCallbacksIsRefusedAndAPlainJobHasNoSummary() async throws {
        try await running(.sqlite) { queue in
            await #expect(throws: DurableQueueError.self) {
                try await queue.enqueue(MaybeFail.self, batch: [], callbacks: BatchCallbacks(onComplete: .job(Summarize.self, "")))
            }
            await #expect(throws: DurableQueueError.self) { try await queue.enqueue(MaybeFail.self, batch: [false], callbacks: BatchCallbacks()) }
            #expect(try await queue.unfinishedJobCount() == 0, "nothing enqueued")
            let alone = try await queue.enqueue(Summarize.self, "alone")
            let error = await #expect(throws: DurableQueueError.self) { try await alone.result(timeout: .seconds(10)) }
            #expect(error?.message.contains("is not the callback of a batch") == true, "\(String(describing: error))")
        }
    }
}
