import Synchronization

/// Why the engine stops a running attempt before its handler returns.
enum StopReason: Sendable, Hashable {
    /// Someone asked to cancel the job.
    case cancelRequested
    /// The attempt ran past the job's timeout.
    case timedOut
    /// The engine is shutting down: the job goes back to `pending`.
    case shutdown
    /// This process paused (``JobQueue/pauseInThisProcess(gracePeriod:)``): the job goes back to
    /// `pending`, its attempt not counted.
    case paused
    /// Another process recovered the job after this process's lease expired: record nothing.
    case leaseLost
}

/// A one-shot signal that tells a running attempt to stop, and why; the first reason wins.
final class StopSignal: Sendable {
    private struct State {
        var reason: StopReason?
        var action: (@Sendable (StopReason) -> Void)?
        var abandoned = false
        var abandonAction: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// The reason given, if the attempt was told to stop.
    var reason: StopReason? { state.withLock { $0.reason } }

    /// Tells the attempt to stop; later calls change nothing.
    func stop(_ reason: StopReason) {
        let action = state.withLock { state -> (@Sendable (StopReason) -> Void)? in
            guard state.reason == nil else { return nil }
            state.reason = reason
            defer { state.action = nil }
            return state.action
        }
        action?(reason)
    }

    /// Runs `action` with the reason when the attempt is told to stop, or at once if it already was.
    /// One action per signal: a later call replaces an earlier one that has not run.
    func onStop(_ action: @escaping @Sendable (StopReason) -> Void) {
        let stopped = state.withLock { state -> StopReason? in
            if let reason = state.reason { return reason }
            state.action = action
            return nil
        }
        if let stopped { action(stopped) }
    }

    /// Gives up waiting for a stopped attempt's handler, which did not return within the grace
    /// period: the attempt ends as if its handler had thrown, and whatever the handler returns
    /// later is discarded. Later calls change nothing.
    func abandon() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.abandoned else { return nil }
            state.abandoned = true
            defer { state.abandonAction = nil }
            return state.abandonAction
        }
        action?()
    }

    /// Whether the attempt was abandoned: its handler may still run, and must write nothing more.
    var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// Runs `action` when the attempt is abandoned (see ``abandon()``), or at once if it was.
    func onAbandon(_ action: @escaping @Sendable () -> Void) {
        let abandoned = state.withLock { state -> Bool in
            if state.abandoned { return true }
            state.abandonAction = action
            return false
        }
        if abandoned { action() }
    }
}
