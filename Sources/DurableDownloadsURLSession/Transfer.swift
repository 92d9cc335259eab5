import DurableDownloads
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One exchange's session delegate: it hands the response's head to the caller, keeps the body's
/// chunks until the job reads them, and ends the session when the task completes. Its calls come
/// on the session's serial queue; the job reads from its own task.
final class Transfer: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var head: Result<HTTPURLResponse, any Error>?
        var headWaiter: CheckedContinuation<HTTPURLResponse, any Error>?
        var chunks: [Data] = []
        var chunkIndex = 0
        /// Set when the task completed: nil, or the error it failed with.
        var end: (any Error)??
        var reader: CheckedContinuation<[UInt8]?, any Error>?

        /// The oldest chunk not read yet, as bytes.
        mutating func takeChunk() -> [UInt8]? {
            guard chunkIndex < chunks.count else { return nil }
            let chunk = chunks[chunkIndex]
            chunkIndex += 1
            if chunkIndex == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                chunkIndex = 0
            }
            return [UInt8](chunk)
        }
    }

    private let state = Mutex(State())
    private let url: URL
    private let sent: (@Sendable (Int) async -> Void)?

    init(url: URL, sent: (@Sendable (Int) async -> Void)?) {
        self.url = url
        self.sent = sent
    }

    /// Starts `task` and returns the response's head once it arrives; cancelling the caller cancels it.
    func head(of task: URLSessionTask) async throws -> HTTPURLResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<HTTPURLResponse, any Error>? in
                    if let head = state.head { return head }
                    state.headWaiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) } else { task.resume() }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// The next chunk of the body, waiting for it; nil at its end.
    func nextChunk() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<[UInt8]?, any Error>? in
                if let chunk = state.takeChunk() { return .success(chunk) }
                if let end = state.end { return end.map { .failure($0) } ?? .success(nil) }
                state.reader = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        deliverHead(of: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // The head, if the call above did not come (an SDK whose requirement differs in its
        // handler's annotations would not call it): a task has its response before its first data.
        if let response = dataTask.response { deliverHead(of: response) }
        let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            state.chunks.append(data)
            guard let reader = state.reader else { return nil }
            state.reader = nil
            return reader
        }
        // The reader waited, so nothing was queued before this chunk.
        if let reader { reader.resume(returning: state.withLock { $0.takeChunk() }) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let sent else { return }
        let total = Int(totalBytesSent)
        Task { await sent(total) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let failure = error.map { URLSessionErrors.mapped($0, url: url) }
        // A response without a body has its head only now; a task that completes without one failed
        // before the response (or was cancelled).
        if failure == nil, let response = task.response { deliverHead(of: response) }
        deliverHead(.failure(failure ?? TransportError.closedEarly(url)))
        let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            state.end = .some(failure)
            defer { state.reader = nil }
            return state.reader
        }
        if let reader {
            if let failure { reader.resume(throwing: failure) } else { reader.resume(returning: nil) }
        }
        session.finishTasksAndInvalidate()
    }

    /// Hands `response` to the head's waiter, if it is the first head delivered.
    private func deliverHead(of response: URLResponse) {
        if let response = response as? HTTPURLResponse {
            deliverHead(.success(response))
        } else {
            deliverHead(.failure(TransportError("\(TransportError.place(of: url)) did not answer in HTTP")))
        }
    }

    /// Hands the head to its waiter; only the first delivery counts.
    private func deliverHead(_ head: Result<HTTPURLResponse, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<HTTPURLResponse, any Error>? in
            guard state.head == nil else { return nil }
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(with: head)
    }
}

/// The job's reading of a body: a reader cancelled (the job stopped, its idle watchdog fired)
/// cancels the task, and a body dropped unread cancels it too, which ends its session.
final class BodyReading: Sendable {
    private let transfer: Transfer
    private let task: URLSessionTask

    init(transfer: Transfer, task: URLSessionTask) {
        self.transfer = transfer
        self.task = task
    }

    func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await transfer.nextChunk()
        } onCancel: { [task] in
            task.cancel()
        }
    }

    deinit {
        task.cancel()
    }
}
