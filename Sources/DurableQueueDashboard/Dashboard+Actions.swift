import DurableQueue
import DurableQueueInspection
import Foundation
import Hummingbird

/// The actions, each a POST through the library (so each change has its event in the history).
/// A form posts `back` and gets a redirect there; any other client gets JSON.
extension Dashboard {
    func cancel(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try RequestValues.jobID(context)
        let job = try await reading { try await queue.reader.job(id) }
        guard !job.state.isTerminal else {
            throw DashboardFailure(.conflict, "job \(id) already \(job.state.rawValue): there is nothing to cancel")
        }
        try await reading { try await queue.jobs.cancel(id) }
        return try await acted(request, back: "/jobs/\(id)") { try await jobJSON(id) }
    }

    func retry(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try RequestValues.jobID(context)
        try await reading { try await queue.jobs.retry(id) }
        return try await acted(request, back: "/jobs/\(id)") { try await jobJSON(id) }
    }

    /// Sends a job a signal: a form's `name` and `payload` (JSON text; empty for `null`), or a JSON
    /// body `{"name": …, "payload": …}`.
    func signal(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try RequestValues.jobID(context)
        let isForm = request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true
        let body = String(buffer: try await request.body.collect(upTo: 64 * 1024))
        let (name, payload) = isForm ? (Self.formValue("name", in: body), Self.formValue("payload", in: body)) : try Self.signalJSON(body)
        guard let name, !name.isEmpty else { throw DashboardFailure(.badRequest, "a signal needs a name") }
        let payloadText = payload.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 } ?? "null"
        let result = try await reading { try await queue.jobs.signal(id, name, payloadJSON: payloadText) }
        if case .jobFinished(let state) = result {
            throw DashboardFailure(.conflict, "job \(id) already \(state.rawValue): signal '\(name)' not kept")
        }
        actions.increment()
        if isForm { return .seeOther(Self.localPath(Self.formValue("back", in: body)) ?? "/jobs/\(id)") }
        return .json(.object([("signal", .string(name)), ("result", .string(result.description)), ("job", try await jobJSON(id))]))
    }

    /// A JSON body's signal name and payload (as JSON text).
    private static func signalJSON(_ body: String) throws -> (String?, String?) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw DashboardFailure(.badRequest, "send a form, or a JSON object {\"name\": …, \"payload\": …}")
        }
        let payload = try object["payload"].map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed, .sortedKeys]), as: UTF8.self)
        }
        return (object["name"] as? String, payload)
    }

    func setPaused(_ paused: Bool, _ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try RequestValues.queueName(context)
        try await reading {
            guard try await queue.queues.configuration(of: name) != nil else {
                throw DashboardFailure(.notFound, "there is no queue named '\(name)'")
            }
            if paused { try await queue.queues.pause(name) } else { try await queue.queues.resume(name) }
        }
        return try await acted(request, back: "/") {
            let statuses = try await reading { try await queue.reader.queueStatuses() }
            return statuses.first { $0.configuration.name == name }?.json ?? .null
        }
    }

    /// The response to an action that was carried out: a redirect for a form, else `result` as JSON.
    func acted(_ request: Request, back: String, result: () async throws -> JSONValue) async throws -> Response {
        actions.increment()
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else {
            return .json(try await result())
        }
        let form = String(buffer: try await request.body.collect(upTo: 16 * 1024))
        return .seeOther(Self.localPath(Self.formValue("back", in: form)) ?? back)
    }

    /// A form field's value (the first with that name).
    static func formValue(_ name: String, in form: String) -> String? {
        var components = URLComponents()
        components.percentEncodedQuery = form.replacingOccurrences(of: "+", with: "%20")
        return components.queryItems?.first { $0.name == name }?.value
    }

    /// `path` if it is a path of this dashboard (so a form cannot send the browser elsewhere).
    static func localPath(_ path: String?) -> String? {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"),
            !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return path
    }
}
