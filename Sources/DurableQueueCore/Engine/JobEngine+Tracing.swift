import Tracing

extension JobEngine {
    /// The tracer attempts of this run report to, looked up when the run starts; nil when it is
    /// the no-op tracer (nothing bootstrapped), so that attempts skip spans altogether.
    static func recordingTracer(_ tracer: any Tracer) -> (any Tracer)? {
        tracer is NoOpTracer ? nil : tracer
    }

    /// A span for `job`'s attempt (swift-distributed-tracing), a child of the context that enqueued
    /// the job: a trace goes from the request that enqueued it to each attempt, in any process.
    func startSpan(for job: ClaimedJob, tracer: any Tracer) -> any Span {
        let span = tracer.startSpan(job.kind, context: TraceContext.restore(job.traceContext, with: tracer), ofKind: .consumer)
        if span.isRecording {
            span.attributes["messaging.system"] = "durablequeue"
            span.attributes["messaging.destination.name"] = job.queue
            span.attributes["messaging.message.id"] = "\(job.id.rawValue)"
            span.attributes["durablequeue.job.id"] = Int(job.id.rawValue)
            span.attributes["durablequeue.job.kind"] = job.kind
            span.attributes["durablequeue.job.attempt"] = job.attempt
        }
        return span
    }

    /// Ends an attempt's span with how it ended (attribute `durablequeue.job.outcome`), recording
    /// `failure` as the span's error.
    func endSpan(_ span: any Span, outcome: String, failure: JobFailure?) {
        if span.isRecording {
            span.attributes["durablequeue.job.outcome"] = outcome
            if let failure {
                span.recordError(AttemptFailure(failure: failure))
                span.setStatus(SpanStatus(code: .error, message: failure.message))
            }
        }
        span.end()
    }

    /// An attempt's outcome as its span says it: the job's state after it, `retry` when it waits
    /// for another attempt.
    static func spanOutcome(_ state: JobState) -> String {
        switch state {
        case .pending, .scheduled, .blocked: "retry"
        default: state.rawValue
        }
    }
}

/// A handler's failure as a span records it: its type and message.
private struct AttemptFailure: Error, CustomStringConvertible {
    let failure: JobFailure
    var description: String { "\(failure.type): \(failure.message)" }
}
