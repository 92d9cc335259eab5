import Foundation
import Tracing

/// How a job carries the trace context of the code that enqueued it: the fields a tracer injects
/// (W3C `traceparent`, say) as a JSON object, stored with the job and extracted by each attempt.
enum TraceContext {
    /// The calling task's context as `tracer` injects it, as JSON text; nil when there is none or
    /// the tracer injects nothing (no tracer bootstrapped). The tracer is looked up only when the
    /// task has a context: an untraced enqueue pays for one task-local read.
    static func capture(with tracer: @autoclosure () -> any Tracer) -> String? {
        guard let context = ServiceContext.current else { return nil }
        var fields: [String: String] = [:]
        tracer().inject(context, into: &fields, using: FieldInjector())
        guard !fields.isEmpty else { return nil }
        return try? JSONTextEncoder.encode(fields)
    }

    /// The context `tracer` extracts from stored fields `text`: the parent of an attempt's span.
    static func restore(_ text: String?, with tracer: any Tracer) -> ServiceContext {
        var context = ServiceContext.topLevel
        guard let text, let fields = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)) else {
            return context
        }
        tracer.extract(fields, into: &context, using: FieldExtractor())
        return context
    }

    private struct FieldInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }

    private struct FieldExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }
}
