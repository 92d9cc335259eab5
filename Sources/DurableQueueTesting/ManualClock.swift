import DurableQueue
import Foundation
import Synchronization

/// A clock that moves only when the test says so: give it to ``JobQueue/Configuration/timeSource``,
/// and scheduled jobs, backoffs, throttles, leases and timeouts wait for ``advance(by:)``.
///
/// For example:
/// ```swift
/// let clock = ManualClock()
/// let queue = try JobQueue(path: path, configuration: .init(timeSource: clock))
/// _ = try await queue.enqueue(SendReminder.self, reminder, options: .init(delay: .seconds(3600)))
/// #expect(try await queue.runDueJobs() == 0)
/// clock.advance(by: .seconds(3600))
/// #expect(try await queue.runDueJobs() == 1)
/// ```
public final class ManualClock: TimeSource {
    private struct State {
        var now: Date
        var nextID = 0
        var sleepers: [Int: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state: Mutex<State>

    /// A clock that reads `now` until it is moved.
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex(State(now: now))
    }

    /// The clock's time.
    public func now() -> Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns when the clock reaches `deadline` (at once if it has).
    ///
    /// - Throws: `CancellationError` if the task is cancelled first.
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = (deadline, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
