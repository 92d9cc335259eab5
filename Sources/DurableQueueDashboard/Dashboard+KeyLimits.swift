import DurableQueue
import DurableQueueInspection
import Foundation
import Hummingbird

/// The action that changes a queue's limits per partition key, through the library.
extension Dashboard {
    /// Sets the limits of the keys a pattern names (`*`: every key), or removes a pattern's
    /// override: a form, or a JSON object, with `pattern`, `concurrency`, `throttle_ms`,
    /// `measured_from` (`start` or `end`), `rate_count`, `rate_window_ms` and `remove`.
    func setKeyLimits(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try RequestValues.queueName(context)
        let isForm = request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true
        let body = String(buffer: try await request.body.collect(upTo: 16 * 1024))
        let fields: [String: String]
        if isForm {
            fields = Dictionary(
                ["pattern", "concurrency", "throttle_ms", "measured_from", "rate_count", "rate_window_ms", "remove", "back"]
                    .compactMap { key in Self.formValue(key, in: body).map { (key, $0) } }, uniquingKeysWith: { first, _ in first })
        } else {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
                throw DashboardFailure(.badRequest, "send a form, or a JSON object {\"pattern\": …, \"concurrency\": …}")
            }
            fields = object.mapValues { "\($0)" }
        }
        let (pattern, limits) = try Self.keyLimitsChange(fields)
        try await reading {
            guard try await queue.queues.configuration(of: name) != nil else {
                throw DashboardFailure(.notFound, "there is no queue named '\(name)'")
            }
            try await queue.queues.update(name) { queue in queue[keys: pattern] = limits }
        }
        actions.increment()
        if isForm { return .seeOther(Self.localPath(fields["back"]) ?? "/queues/\(name)/keys") }
        let statuses = try await reading { try await queue.reader.queueStatuses() }
        return .json(statuses.first { $0.configuration.name == name }?.json ?? .null)
    }

    /// The pattern and limits `fields` ask for (nil limits: remove the pattern's override).
    static func keyLimitsChange(_ fields: [String: String]) throws -> (String, KeyLimits?) {
        guard let pattern = fields["pattern"]?.trimmingCharacters(in: .whitespaces), !pattern.isEmpty else {
            throw DashboardFailure(.badRequest, "name a pattern: '*' for every key, a key, or a prefix ending in '*'")
        }
        if ["1", "true", "on"].contains(fields["remove"] ?? "") {
            guard pattern != "*" else { throw DashboardFailure(.badRequest, "'*' has no override to remove; set its limits instead") }
            return (pattern, nil)
        }
        func number(_ key: String) throws -> Int64 {
            guard let text = fields[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return 0 }
            guard let value = Int64(text), value >= 0 else {
                throw DashboardFailure(.badRequest, "\(key) must be a whole number, 0 or more, not '\(text.prefix(40))'")
            }
            return value
        }
        let measuredFrom = fields["measured_from"].flatMap { $0.isEmpty ? nil : $0 } ?? "start"
        guard Throttle.Measurement(rawValue: measuredFrom) != nil else {
            throw DashboardFailure(.badRequest, "measured_from is 'start' or 'end', not '\(measuredFrom.prefix(40))'")
        }
        let rateCount = try number("rate_count")
        let rateWindow = try number("rate_window_ms")
        if rateCount > 0 && rateWindow == 0 { throw DashboardFailure(.badRequest, "a rate limit needs rate_window_ms") }
        return (
            pattern,
            KeyLimits(
                stored: Int(try number("concurrency")), throttleInterval: try number("throttle_ms"), measuredFrom: measuredFrom,
                rateCount: Int(rateCount), rateWindow: rateWindow)
        )
    }
}
