import Foundation

/// Supplies headers such as `Authorization` for a request at the moment it is sent, so that no
/// secret is ever written to the queue file. Register one with ``HTTPJobs`` at start-up; jobs
/// enqueued earlier (or by another process) get the credentials of the process that runs them.
///
/// For example:
/// ```swift
/// let http = HTTPJobs(queue: queue, credentials: { url in
///     url.host == "api.example.com" ? [("Authorization", "Bearer \(token())")] : []
/// })
/// ```
public typealias CredentialsProvider = @Sendable (_ url: URL) async throws -> [(String, String)]
