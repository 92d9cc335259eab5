import Synchronization

/// A handler abandoned after it ignored a stop for the whole grace period (see
/// ``StopSignal/abandon()``): its attempt ends without it.
struct AbandonedHandlerError: Error, CustomStringConvertible {
    var description: String { "the handler did not stop within the grace period" }
}

/// How an attempt's handler ended, delivered once: by the handler's task when it returns or throws,
/// or by the engine when it abandons a handler that ignored a stop. The attempt waits on this
/// rather than on the handler's task, so that an abandoned handler cannot hold it.
final class HandlerOutcome: Sendable {
    private struct State {
        var result: Result<String, any Error>?
        var waiter: CheckedContinuation<Result<String, any Error>, Never>?
    }

    private let state = Mutex(State())

    /// Delivers `result`; only the first delivery counts.
    func deliver(_ result: Result<String, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<String, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    /// The first result delivered, once there is one.
    var value: Result<String, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<String, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
