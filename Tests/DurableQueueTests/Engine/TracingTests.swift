import DurableQueueTestSupport
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Enqueues an ``Echo`` of its input from inside its attempt.
private struct Relay: Job {
    static let name = "relay"
    func run(_ input: String, context: JobContext) async throws -> String {
        _ = try await context.enqueue(Echo.self, input)
        return input
    }
}

/// Fails every attempt.
private struct AlwaysFails: Job {
    static let name = "always-fails"
    func run(_ input: String, context: JobContext) async throws -> String { throw TestFailure() }
}

@Suite(.timeLimit(.minutes(1))) struct TracingTests {
    private func configuration(_ tracer: InMemoryTracer) -> JobQueue.Configuration {
        var configuration = JobQueue.Configuration(pollInterval: .milliseconds(20))
        configuration.tracer = tracer
        return configuration
    }

    private static func attempt(_ span: FinishedInMemorySpan) -> Int64 {
        if case .int64(let number) = span.attributes.get("durablequeue.job.attempt") { number } else { 0 }
    }

    /// The finished span named `name`, once there is one.
    private func finishedSpan(_ name: String, in tracer: InMemoryTracer, count: Int = 1) async throws -> [FinishedInMemorySpan] {
        try await eventually("\(count) '\(name)' span(s) ended") { tracer.finishedSpans.filter { $0.operationName == name }.count >= count }
        return tracer.finishedSpans.filter { $0.operationName == name }
    }

    /// The enqueuing request's trace goes on in the attempt, run by another queue on the same store
    /// (another process, after a restart), whose tracer reads the context stored with the job.
    @Test(arguments: StoreBackend.all) func anAttemptSpanContinuesTheTraceThatEnqueuedTheJobInAnotherQueue(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let requestTracer = InMemoryTracer()
        let enqueuer = try await backend.queue(in: directory, configuration: configuration(requestTracer))
        let (id, request) = try await requestTracer.withSpan("POST /orders") { span in
            (try await enqueuer.enqueue(Echo.self, "order").id, span.spanContext)
        }

        let workerTracer = InMemoryTracer()
        let worker = try await backend.queue(in: directory, configuration: configuration(workerTracer))
        worker.register(Echo())
        let engine = Task { try await worker.run() }
        defer { engine.cancel() }
        let attempt = try #require(try await finishedSpan("echo", in: workerTracer).first)
        #expect(attempt.traceID == request.traceID)
        #expect(attempt.parentSpanID == request.spanID)
        #expect(attempt.kind == .consumer)
        #expect(attempt.attributes.get("durablequeue.job.id") == .int64(id.rawValue))
        #expect(attempt.attributes.get("durablequeue.job.kind") == .string("echo"))
        #expect(attempt.attributes.get("messaging.destination.name") == .string("default"))
        #expect(attempt.attributes.get("durablequeue.job.attempt") == .int64(1))
        #expect(attempt.attributes.get("durablequeue.job.outcome") == .string("succeeded"))
        #expect(attempt.status == nil && attempt.errors.isEmpty)
    }

    @Test(arguments: StoreBackend.all) func aJobEnqueuedByAHandlerIsAChildOfItsAttempt(_ backend: StoreBackend) async throws {
        let tracer = InMemoryTracer()
        try await withRunningQueue(on: backend, configuration: configuration(tracer), register: { $0.register(Relay()); $0.register(Echo()) }) {
            queue async throws in
            let request = try await tracer.withSpan("request") { span in
                _ = try await queue.enqueue(Relay.self, "x")
                return span.spanContext
            }
            let relay = try #require(try await finishedSpan("relay", in: tracer).first)
            let echo = try #require(try await finishedSpan("echo", in: tracer).first)
            #expect(relay.parentSpanID == request.spanID && echo.parentSpanID == relay.spanID)
            #expect(Set([relay.traceID, echo.traceID]) == [request.traceID])
        }
    }

    @Test(arguments: StoreBackend.all) func failedAttemptsRecordTheirErrorAndAJobEnqueuedOutsideATraceStartsOne(_ backend: StoreBackend) async throws {
        let tracer = InMemoryTracer()
        try await withRunningQueue(on: backend, configuration: configuration(tracer), register: { $0.register(AlwaysFails()) }) {
            queue async throws in
            let handle = try await queue.enqueue(
                AlwaysFails.self, "x", options: EnqueueOptions(retry: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero))))
            _ = try? await handle.result()
            let spans = try await finishedSpan("always-fails", in: tracer, count: 2).sorted { Self.attempt($0) < Self.attempt($1) }
            #expect(spans.map { $0.attributes.get("durablequeue.job.outcome") } == [.string("retry"), .string("failed")])
            #expect(spans.allSatisfy { $0.status?.code == .error && $0.errors.count == 1 })
            #expect(spans.allSatisfy { $0.parentSpanID == nil })  // no trace at enqueue: each attempt is a root
        }
    }
}
