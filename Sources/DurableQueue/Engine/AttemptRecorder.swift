import Synchronization

/// Records the ends of attempts in groups: one transaction commits every ending reported while the
/// previous transaction was being written (group commit).
///
/// Each caller waits until the transaction holding its ending has committed, so nobody hears of an
/// outcome the file does not have. One flusher runs at a time; at a low rate each ending gets its
/// own transaction at once, at a high rate endings share one and the write cost is spread over them.
final class AttemptRecorder: Sendable {
    private typealias Waiter = (attempt: FinishedAttempt, continuation: CheckedContinuation<JobState?, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var flushing = false
    }

    private let state = Mutex(State())
    private let store: SQLiteJobStore
    private let time: any TimeSource

    /// Records into `store`, stamping each transaction with the time by `time`.
    init(store: SQLiteJobStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    /// Records `attempt`'s end and returns once it is committed.
    ///
    /// - Returns: The state the job is now in, or nil if the worker no longer held its lease and
    ///   nothing was recorded.
    /// - Throws: The storage error that failed the transaction holding this ending.
    func record(_ attempt: FinishedAttempt) async throws -> JobState? {
        try await withCheckedThrowingContinuation { continuation in
            let startsFlusher = state.withLock { state in
                state.waiting.append((attempt, continuation))
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            if startsFlusher { Task { await self.flush() } }
        }
    }

    /// Commits waiting endings, a group per transaction, until none is left.
    private func flush() async {
        while true {
            let group = state.withLock { state in
                defer { state.waiting.removeAll(keepingCapacity: true) }
                if state.waiting.isEmpty { state.flushing = false }
                return state.waiting
            }
            if group.isEmpty { return }
            let attempts = group.map(\.attempt)
            let now = time.nowMilliseconds
            do {
                let states = try await store.perform { try $0.finish(attempts, now: now) }
                for waiter in group { waiter.continuation.resume(returning: states[waiter.attempt.id]) }
            } catch {
                for waiter in group { waiter.continuation.resume(throwing: error) }
            }
        }
    }
}
