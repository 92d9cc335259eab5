import Foundation
import Synchronization

/// Wakes tasks waiting for "something changed", without losing a change that happens between a
/// waiter's last look and its wait.
///
/// Each signal bumps a generation number. A waiter passes the generation it last saw and returns at
/// once if a signal came since; otherwise it sleeps until the next one (or until its task is
/// cancelled, which the deadline helpers use).
final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// The current generation: pass it to ``wait(after:)`` to hear of any later signal.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Wakes every waiter.
    func signal() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when a signal newer than `seen` has come, or when the task is cancelled.
    func wait(after seen: UInt64) async {
        let id = state.withLock { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Returns when a signal newer than `seen` has come, or at `deadline` by `time`.
    ///
    /// - Returns: true if a signal came, false if the deadline passed (or the task was cancelled).
    @discardableResult
    func wait(after seen: UInt64, until deadline: Date, time: any TimeSource) async -> Bool {
        if generation != seen { return true }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait(after: seen) }
            group.addTask { try? await time.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
        return generation != seen
    }
}
