import Synchronization

/// Fails the store's calls that get no answer within the call timeout (``PostgresStorage/callTimeout``),
/// with one task for all of them: a timer per call (a sleeping task each) cost an awaited enqueue
/// about a seventh of its CPU, most of it in the kernel waking the timer's thread.
///
/// The task runs only while calls are in flight: it looks every quarter of the timeout (at most
/// every second), so a call fails between one timeout and one look after it; an idle store sleeps.
final class CallWatchdog: Sendable {
    private struct Call {
        var deadline: ContinuousClock.Instant
        var fail: @Sendable () -> Void
    }

    private struct State {
        var calls: [UInt64: Call] = [:]
        var lastToken: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())
    /// How long a call may wait.
    let timeout: Duration
    /// How often the task looks while calls are in flight.
    private let interval: Duration

    init(timeout: Duration) {
        self.timeout = timeout
        interval = min(timeout / 4, .seconds(1))
    }

    /// Watches a call that began now: `fail` runs if it is still in flight after the timeout, unless
    /// ``finished(_:)`` said it ended first. Returns the call's token.
    func watch(failing fail: @escaping @Sendable () -> Void) -> UInt64 {
        let (token, start) = state.withLock { state in
            state.lastToken += 1
            state.calls[state.lastToken] = Call(deadline: .now + timeout, fail: fail)
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
            let overdue = state.withLock { state -> [@Sendable () -> Void]? in
                let now = ContinuousClock.now
                let due = state.calls.filter { $0.value.deadline <= now }
                for token in due.keys { state.calls.removeValue(forKey: token) }
                if state.calls.isEmpty && due.isEmpty {
                    state.watching = false
                    return nil
                }
                return due.values.map(\.fail)
            }
            guard let overdue else { return }
            for fail in overdue { fail() }
        }
    }
}
