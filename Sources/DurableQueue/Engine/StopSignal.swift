import Synchronization

/// Why the engine stops a running attempt before its handler returns.
enum StopReason: Sendable, Hashable {
    /// Someone asked to cancel the job.
    case cancelRequested
    /// The attempt ran past the job's timeout.
    case timedOut
    /// The engine is shutting down: the job goes back to `pending`.
    case shutdown
    /// Another process recovered the job after this process's lease expired: record nothing.
    case leaseLost
}

/// A one-shot signal that tells a running attempt to stop, and why; the first reason wins.
final class StopSignal: Sendable {
    private struct State {
        var reason: StopReason?
        var waiter: CheckedContinuation<StopReason?, Never>?
    }

    private let state = Mutex(State())

    /// The reason given, if the attempt was told to stop.
    var reason: StopReason? { state.withLock { $0.reason } }

    /// Tells the attempt to stop; later calls change nothing.
    func stop(_ reason: StopReason) {
        let waiter = state.withLock { state -> CheckedContinuation<StopReason?, Never>? in
            guard state.reason == nil else { return nil }
            state.reason = reason
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: reason)
    }

    /// Returns the reason once the attempt is told to stop, or nil if the waiting task is cancelled.
    func wait() async -> StopReason? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StopReason?, Never>) in
                let now = state.withLock { state -> StopReason?? in
                    if let reason = state.reason { return .some(reason) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
