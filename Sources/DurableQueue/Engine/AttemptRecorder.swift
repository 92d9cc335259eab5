import Synchronization

/// Claims the jobs that take ended attempts' places, in the transaction that records the endings.
protocol AttemptRefiller: Sendable {
    /// Claims due jobs inside the caller's write transaction, for this process's free room plus the
    /// `freed` attempts whose endings the transaction records.
    func claimDue(in store: isolated SQLiteJobStore, freeing freed: Int, now: Int64) throws -> [ClaimedJob]
    /// Hands `jobs`, claimed by a committed transaction, to the engine to run.
    func admit(_ jobs: [ClaimedJob])
}

/// Records the ends of attempts in groups: one transaction commits every ending reported while the
/// previous transaction was being written (group commit).
///
/// Each caller waits until the transaction holding its ending has committed, so nobody hears of an
/// outcome the file does not have. One flusher runs at a time; at a low rate each ending gets its
/// own transaction at once, at a high rate endings share one and the write cost is spread over them.
/// With a ``refiller``, the same transaction also claims the jobs that take the ended attempts'
/// places (acknowledge-and-fetch), so a busy engine commits once per group rather than twice.
final class AttemptRecorder: Sendable {
    private typealias Waiter = (attempt: FinishedAttempt, continuation: CheckedContinuation<JobState?, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var flushing = false
    }

    private let state = Mutex(State())
    private let currentRefiller = Mutex<(any AttemptRefiller)?>(nil)
    private let store: SQLiteJobStore
    private let time: any TimeSource

    /// Records into `store`, stamping each transaction with the time by `time`.
    init(store: SQLiteJobStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    /// What claims more jobs along with the endings; nil (the default) claims nothing.
    var refiller: (any AttemptRefiller)? {
        get { currentRefiller.withLock { $0 } }
        set { currentRefiller.withLock { $0 = newValue } }
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
            let refiller = refiller
            do {
                let states = try await store.perform { store in
                    let (states, claimed) = try store.finish(attempts, now: now) { store in
                        try refiller?.claimDue(in: store, freeing: attempts.count, now: now) ?? []
                    }
                    // Still under the store's lock: no other claim counts the room before these are in it.
                    if let refiller, !claimed.isEmpty { refiller.admit(claimed) }
                    return states
                }
                for waiter in group { waiter.continuation.resume(returning: states[waiter.attempt.id]) }
            } catch {
                for waiter in group { waiter.continuation.resume(throwing: error) }
            }
        }
    }
}
