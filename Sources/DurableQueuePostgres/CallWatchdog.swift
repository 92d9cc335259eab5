import Synchronization

/// Fails the store's calls that get no answer within the call timeout (``PostgresStorage/callTimeout``),
/// with one task for all of them: a timer per call (a sleeping task each) cost an awaited enqueue
/// about a seventh of its CPU, most of it in the kernel waking the timer's thread.
///
/// The task runs only while calls are in flight: it looks every quarter of the timeout (at most
/// every second), so a call fails between one timeout and one look after it; an idle store sleeps.
/// A call still unanswered after ``slowCall`` is reported once, so that a log shows what waits.
final class CallWatchdog: Sendable {
    private struct Call {
        var deadline: ContinuousClock.Instant
        /// When the call is reported as slow; nil once it was.
        var slowAt: ContinuousClock.Instant?
        var fail: @Sendable () -> Void
        var reportSlow: @Sendable (Duration) -> Void
    }

    private struct State {
        var calls: [UInt64: Call] = [:]
        var lastToken: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())
    /// How long a call may wait.
    let timeout: Duration
    /// How long a call waits before it is reported as slow: half the timeout, at most 5 s.
    let slowCall: Duration
    /// How often the task looks while calls are in flight.
    private let interval: Duration

    init(timeout: Duration) {
        self.timeout = timeout
        slowCall = min(timeout / 2, .seconds(5))
        interval = min(timeout / 4, .seconds(1))
    }

    /// Watches a call that began now: `reportSlow` runs (with the time waited) if it is still in
    /// flight after ``slowCall``, `fail` if it still is after the timeout, unless ``finished(_:)``
    /// said it ended first. Returns the call's token.
    func watch(reportingSlow reportSlow: @escaping @Sendable (Duration) -> Void, failing fail: @escaping @Sendable () -> Void) -> UInt64 {
        let (token, start) = state.withLock { state in
            state.lastToken += 1
            let now = ContinuousClock.now
            state.calls[state.lastToken] = Call(deadline: now + timeout, slowAt: now + slowCall, fail: fail, reportSlow: reportSlow)
            defer { state.watching = true }
            return (state.lastToken, !state.watching)
        }
        if start { Task { await self.watchWhileCallsRun() } }
        return token
    }

    /// Notes that the call of `token` ended.
    func finished(_ token: UInt64) {
        _ = state.withLock { $0.calls.removeValue(forKey: token) }
    }

    /// Fails overdue calls until none is in flight.
    private func watchWhileCallsRun() async {
        while true {
            try? await Task.sleep(for: interval)
            let actions = state.withLock { state -> [@Sendable () -> Void]? in
                let now = ContinuousClock.now
                let due = state.calls.filter { $0.value.deadline <= now }
                for token in due.keys { state.calls.removeValue(forKey: token) }
                if state.calls.isEmpty && due.isEmpty {
                    state.watching = false
                    return nil
                }
                var actions = due.values.map(\.fail)
                for (token, call) in state.calls {
                    guard let slowAt = call.slowAt, slowAt <= now else { continue }
                    state.calls[token]?.slowAt = nil
                    let waited = now - (call.deadline - timeout)
                    actions.append { call.reportSlow(waited) }
                }
                return actions
            }
            guard let actions else { return }
            for action in actions { action() }
        }
    }
}
