import DurableQueue
import Hummingbird

/// The values a request carries (path parameters and query), checked: anything malformed is a 400
/// that says which value and why.
enum RequestValues {
    /// The longest text a filter takes.
    static let maximumTextLength = 200
    /// The most jobs a listing returns.
    static let maximumLimit = 500

    /// The job id in the path.
    static func jobID(_ context: some RequestContext) throws -> JobID {
        JobID(try positiveNumber(context.parameters.get("id"), name: "job id"))
    }

    /// The group id in the path.
    static func groupID(_ context: some RequestContext) throws -> GroupID {
        GroupID(try positiveNumber(context.parameters.get("id"), name: "group id"))
    }

    /// The queue name in the path.
    static func queueName(_ context: some RequestContext) throws -> String {
        guard let name = try text(context.parameters.get("name"), name: "queue") else {
            throw DashboardFailure(.badRequest, "the queue name is missing")
        }
        return name
    }

    /// The job filter a listing's query asks for: `state`, `queue`, `kind`, `tag`, `error` (text
    /// of the last error), `q` (search) and `limit` (1…500, default 50), newest first.
    static func jobFilter(_ request: Request) throws -> JobFilter {
        let query = request.uri.queryParameters
        var filter = JobFilter(limit: 50)
        if let state = try text(query.get("state"), name: "state") {
            guard let parsed = JobState(rawValue: state) else {
                throw DashboardFailure(
                    .badRequest, "unknown state '\(state)': use one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter.states = [parsed]
        }
        filter.queues = try text(query.get("queue"), name: "queue").map { [$0] }
        filter.kinds = try text(query.get("kind"), name: "kind").map { [$0] }
        filter.tag = try text(query.get("tag"), name: "tag")
        filter.errorText = try text(query.get("error"), name: "error")
        filter.search = try text(query.get("q"), name: "q")
        if let limit = query.get("limit") {
            guard let value = Int(limit), (1...maximumLimit).contains(value) else {
                throw DashboardFailure(.badRequest, "limit must be a whole number from 1 to \(maximumLimit), not '\(limit.prefix(40))'")
            }
            filter.limit = value
        }
        return filter
    }

    /// The bulk action a query names in `name` (`retry`, `cancel`, `delete`); nil when absent.
    static func bulkAction(_ request: Request, name: String) throws -> BulkAction? {
        guard let value = try text(request.uri.queryParameters.get(name), name: name) else { return nil }
        guard let action = BulkAction(rawValue: value) else {
            throw DashboardFailure(
                .badRequest, "unknown action '\(value)': use one of \(BulkAction.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return action
    }

    /// The jobs a bulk action takes: those of `filter`, which may not search (a search's words
    /// match ids, inputs and keys too loosely to change jobs by).
    static func selection(_ filter: JobFilter) throws -> JobSelection {
        guard filter.search == nil else {
            throw DashboardFailure(.badRequest, "a search cannot select jobs for a bulk action: use state, queue, kind, tag or error")
        }
        return JobSelection(states: filter.states, queues: filter.queues, kinds: filter.kinds, tag: filter.tag, errorContains: filter.errorText)
    }

    /// `filter`'s fields as the jobs page's query carries them.
    static func queryItems(_ filter: JobFilter) -> [(String, String?)] {
        [
            ("state", filter.states?.first?.rawValue), ("queue", filter.queues?.first), ("kind", filter.kinds?.first),
            ("tag", filter.tag), ("error", filter.errorText), ("q", filter.search),
        ]
    }

    /// A path value as a positive number.
    private static func positiveNumber(_ value: String?, name: String) throws -> Int64 {
        guard let value, let number = Int64(value), number > 0 else {
            throw DashboardFailure(.badRequest, "\(name) must be a positive whole number, not '\((value ?? "").prefix(40))'")
        }
        return number
    }

    /// A text value, nil when absent or empty; refused when too long or holding control characters.
    private static func text(_ value: String?, name: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard value.count <= maximumTextLength else {
            throw DashboardFailure(.badRequest, "\(name) is longer than \(maximumTextLength) characters")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DashboardFailure(.badRequest, "\(name) contains control characters")
        }
        return value
    }
}
