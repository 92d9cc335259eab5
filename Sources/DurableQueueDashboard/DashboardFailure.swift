import DurableQueue
import DurableQueueInspection
import HTTPTypes
import Hummingbird

/// A request the dashboard refuses or could not serve: a status and a message saying why, as JSON
/// under `/api/` (`{"error": "…"}`) and as a page elsewhere.
struct DashboardFailure: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The failure a library error stands for: not found (404), a request the state of the job or
    /// queue does not allow (409), a store that cannot be reached now (503).
    init(_ error: DurableQueueError) {
        switch error.code {
        case .jobNotFound, .groupNotFound: self.init(.notFound, error.message)
        case .invalidArgument, .readOnly: self.init(.conflict, error.message)
        case .databaseLocked, .storage: self.init(.serviceUnavailable, error.message)
        default: self.init(.internalServerError, error.message)
        }
    }

    var headers: HTTPFields { [:] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if request.uri.path.hasPrefix("/api/") {
            return .json(.object([("error", .string(message))]), status: status)
        }
        let page = PageLayout(title: "\(status.code) \(status.reasonPhrase)", actionsEnabled: false)
        return .html(page.render(body: "<h1>\(status.code) \(HTML.escape(status.reasonPhrase))</h1><p class=\"error\">\(HTML.escape(message))</p>"), status: status)
    }
}

extension Response {
    /// `value` as a JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.text)))
    }

    /// `page` as an HTML response.
    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// A redirect to `location` (a path of this dashboard) after a form's action.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
