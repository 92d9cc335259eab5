import Foundation
import HTTPTypes
import Hummingbird

/// What every request passes through: the Host check, the token, and headers that keep the pages
/// out of other sites' frames.
///
/// - A dashboard on a loopback address answers only requests addressed to a loopback name (so a web
///   page cannot reach it through a DNS name rebound to 127.0.0.1).
/// - Opening any page with `?token=` (the URL the dashboard prints) stores the token in an
///   HTTP-only, same-site cookie and redirects to the page without it.
/// - Every POST (an action) needs the token, in that cookie or as `Authorization: Bearer …`, and
///   is refused when the browser says it comes from another site (`Origin`, `Sec-Fetch-Site`).
struct AccessGuard<Context: RequestContext>: RouterMiddleware {
    /// The cookie that carries the token.
    static var cookieName: String { "durableq_token" }

    let token: String
    let loopbackOnly: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if loopbackOnly, !Self.isLoopback(authority: request.head.authority) {
            throw DashboardFailure(.misdirectedRequest, "this dashboard answers only requests to 127.0.0.1 or localhost")
        }
        if let offered = request.uri.queryParameters.get("token") {
            guard Self.equal(offered, token) else {
                throw DashboardFailure(.forbidden, "wrong token: open the URL `durableq serve` printed at its start")
            }
            var response = Response.seeOther(Self.pathWithoutToken(path: request.uri.path, query: request.uri.query))
            response.setCookie(Cookie(name: Self.cookieName, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return try Self.guarded(response)
        }
        if request.method == .post {
            try checkAction(request)
        }
        return try Self.guarded(try await next(request, context))
    }

    /// Whether `request` carries this start's token.
    func isAuthorized(_ request: Request) -> Bool {
        if let cookie = request.cookies[Self.cookieName], Self.equal(cookie.value, token) { return true }
        if let header = request.headers[.authorization], header.hasPrefix("Bearer "), Self.equal(String(header.dropFirst(7)), token) {
            return true
        }
        return false
    }

    private func checkAction(_ request: Request) throws {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            throw DashboardFailure(.forbidden, "actions from another site are refused (Sec-Fetch-Site: \(site))")
        }
        if let origin = request.headers[.origin], origin != "http://\(request.head.authority ?? "")" {
            throw DashboardFailure(.forbidden, "actions from another site are refused (Origin: \(origin.prefix(100)))")
        }
        guard isAuthorized(request) else {
            throw DashboardFailure(
                .forbidden, "actions need this dashboard's token: open the URL `durableq serve` printed, or send Authorization: Bearer <token>")
        }
    }

    /// `response` with headers that keep it out of frames and caches and its links from leaking.
    private static func guarded(_ response: Response) throws -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = "default-src 'self'; frame-ancestors 'none'; form-action 'self'"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }

    /// Whether a Host header (`name:port`, `[::1]:port`) names this machine's loopback interface.
    static func isLoopback(authority: String?) -> Bool {
        guard var host = authority else { return false }
        if host.hasPrefix("[") {
            host = String(host.dropFirst().prefix(while: { $0 != "]" }))
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        return Dashboard.isLoopback(host)
    }

    /// The request's path and query without its `token` parameter.
    private static func pathWithoutToken(path: String, query: String?) -> String {
        var components = URLComponents()
        components.percentEncodedQuery = query
        let kept = (components.percentEncodedQueryItems ?? []).filter { $0.name != "token" }
        components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        let path = path.hasPrefix("/") && !path.hasPrefix("//") ? path : "/"
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// Compares two secrets in time that does not depend on where they differ.
    private static func equal(_ offered: String, _ expected: String) -> Bool {
        let offered = Array(offered.utf8)
        let expected = Array(expected.utf8)
        guard offered.count == expected.count else { return false }
        return zip(offered, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
