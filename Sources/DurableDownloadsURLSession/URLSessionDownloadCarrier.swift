import DurableDownloads
import DurableQueue
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `DownloadCarrier` over `URLSession` download tasks: with a background configuration
/// (`URLSessionConfiguration.background(withIdentifier:)`, Apple platforms), the system fetches the
/// file while the app is suspended or terminated, and relaunches the app to deliver it.
///
/// A task per attempt, its `taskDescription` the attempt's `CarriedDownload.reference` (kept in the
/// job's row too); the body placed at the job's part file inside `didFinishDownloadingTo`, then the
/// job completed with the file's SHA-256; a failure's resume data kept as the job's checkpoint for
/// the next attempt. After a relaunch, create the carrier with the same configuration identifier
/// and pass it to `HTTPJobs(…, downloadCarrier:)` before the queue runs: its session reconnects to
/// the system's, the pending events arrive, and the queue's start-up reconciliation gives back the
/// jobs whose task the system no longer knows. Hand the system's completion handler of
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` to
/// ``eventsDelivered(_:)``.
///
/// With any other configuration (and on Linux) the same tasks run in the process, in the foreground.
public final class URLSessionDownloadCarrier: NSObject, DownloadCarrier, URLSessionDownloadDelegate, @unchecked Sendable {
    // @unchecked: `configuration` is a copy no one changes after init; the rest is under `state`.

    /// A transfer's end, seen in `didFinishDownloadingTo`, reported at `didCompleteWithError`.
    private enum Ending {
        case placed(suggestedName: String?)
        case failed(any Error)
    }

    private struct State {
        var http: HTTPJobs?
        var session: URLSession?
        /// Ends seen but not reported yet, by task identifier.
        var endings: [Int: Ending] = [:]
        /// References whose end is being reported: still carried, for reconciliation.
        var reporting: Set<String> = []
        /// The system's handler for a background session's events, called once they are all reported.
        var eventsDelivered: (@Sendable () -> Void)?
        /// Whether the system said it delivered every event it held (Apple platforms).
        var eventsFinished = false
    }

    public let name: String
    public let deadline: Duration?
    private let configuration: URLSessionConfiguration
    private let access: URLSessionTransport.NetworkAccess
    private let state = Mutex(State())

    /// A carrier named `name` whose session uses `configuration` (a background one for transfers
    /// that outlive the app) and the networks `access` allows; a carried download may last
    /// `deadline` (nil: no limit) before its attempt counts as failed.
    public init(
        name: String = "urlsession-downloads", configuration: URLSessionConfiguration,
        access: URLSessionTransport.NetworkAccess = URLSessionTransport.NetworkAccess(), deadline: Duration? = nil
    ) {
        self.name = name
        self.deadline = deadline
        self.configuration = configuration.copy() as! URLSessionConfiguration
        self.access = access
        access.apply(to: self.configuration)
    }

    public func attach(to http: HTTPJobs) {
        state.withLock { state in
            state.http = http
            if state.session == nil {
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                state.session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
            }
        }
    }

    /// Calls `completion` (the system's handler for a background session's events) once the
    /// events the system holds have been delivered and reported.
    public func eventsDelivered(_ completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.eventsDelivered = completion }
    }

    public func carry(_ download: CarriedDownload, request: TransportRequest, resumeData: Data?) async throws {
        guard let session = state.withLock({ $0.session }) else {
            throw DownloadError("the carrier '\(name)' is not attached: register the HTTP jobs first")
        }
        let outgoing = URLRequest(request, access: access)
        let task = resumeData.map { session.downloadTask(withResumeData: $0) } ?? session.downloadTask(with: outgoing)
        task.taskDescription = download.reference
        task.resume()
    }

    public func carriedReferences() async -> Set<String> {
        let reporting = state.withLock { $0.reporting }
        return reporting.union(await tasks().compactMap { $0.state == .canceling ? nil : $0.taskDescription })
    }

    public func stopCarrying(_ references: Set<String>) async {
        for task in await tasks() where references.contains(task.taskDescription ?? "") { task.cancel() }
    }

    /// The session's tasks that have not completed.
    private func tasks() async -> [URLSessionTask] {
        guard let session = state.withLock({ $0.session }) else { return [] }
        return await withCheckedContinuation { continuation in
            session.getAllTasks { tasks in continuation.resume(returning: tasks.filter { $0.state != .completed }) }
        }
    }

    /// The system has the body of a carried download at `location`: places it at the job's part file
    /// (a success) or keeps the error status to report, before the system deletes the file.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let download = CarriedDownload(reference: downloadTask.taskDescription ?? ""),
              let http = state.withLock({ $0.http })
        else { return }
        let ending: Ending
        let response = downloadTask.response as? HTTPURLResponse
        switch response?.statusCode ?? 0 {
        case 200..<300:
            // Now: the system deletes the file when this returns.
            do {
                try http.placeCarriedDownload(download, from: location)
                ending = .placed(suggestedName: response?.value(forHTTPHeaderField: "Content-Disposition").flatMap(FileName.fromContentDisposition))
            } catch {
                ending = .failed(error)
            }
        default:
            let body = (try? Data(contentsOf: location, options: .mappedIfSafe)).map { String(decoding: $0.prefix(4_096), as: UTF8.self) }
            ending = .failed(
                HTTPStatusError(
                    status: response?.statusCode ?? 0, body: body ?? "",
                    retryAfter: response?.value(forHTTPHeaderField: "Retry-After").flatMap(Int64.init).map { .seconds($0) }))
        }
        state.withLock { $0.endings[downloadTask.taskIdentifier] = ending }
    }

    /// A carried transfer ended: reports it to the HTTP jobs (finished, failed with its resume data,
    /// or stopped because its job ended otherwise).
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let reference = task.taskDescription, let download = CarriedDownload(reference: reference) else { return }
        let (http, ending) = state.withLock { state in
            state.reporting.insert(reference)
            return (state.http, state.endings.removeValue(forKey: task.taskIdentifier))
        }
        guard let http else { return }
        // The key's value on every platform (Apple's constant is NSURLSessionDownloadTaskResumeData).
        let resumeData = (error as NSError?)?.userInfo["NSURLSessionDownloadTaskResumeData"] as? Data
        let failure = error.map { URLSessionErrors.mapped($0, url: task.originalRequest?.url ?? URL(fileURLWithPath: "/")) }
        Task {
            defer { self.reported(reference) }
            switch (failure, ending) {
            case (nil, .placed(let name)?): _ = try? await http.finishCarriedDownload(download, suggestedName: name)
            case (_, .failed(let failure)?): _ = try? await http.failCarriedDownload(download, error: failure)
            case (let failure?, _) where failure is CancellationError: break  // stopped: its job ended otherwise
            case (let failure?, _): _ = try? await http.failCarriedDownload(download, error: failure, resumeData: resumeData)
            case (nil, nil):
                _ = try? await http.failCarriedDownload(download, error: TransportError("the download ended without its body"))
            }
        }
    }

    /// `reference`'s end was reported.
    private func reported(_ reference: String) {
        state.withLock { _ = $0.reporting.remove(reference) }
        callEventsDeliveredIfDone()
    }

    /// Calls the system's handler once it has delivered every event and each is reported.
    func callEventsDeliveredIfDone() {
        let completion = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.eventsFinished && state.reporting.isEmpty, let completion = state.eventsDelivered else { return nil }
            state.eventsDelivered = nil
            state.eventsFinished = false
            return completion
        }
        completion?()
    }

    /// The system delivered every event it held for the session (Apple platforms' background sessions).
    func eventsFinished() {
        state.withLock { $0.eventsFinished = true }
        callEventsDeliveredIfDone()
    }
}
