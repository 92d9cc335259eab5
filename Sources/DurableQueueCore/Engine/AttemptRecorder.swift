import Synchronization

/// Says what to claim along with recorded endings, and takes the jobs claimed (acknowledge-and-fetch).
protocol AttemptRefiller: Sendable {
    /// What to claim in the transaction that records `freed` endings at `now`, its room reserved in
    /// the engine; nil when nothing may be claimed.
    func refillRequest(freeing freed: Int, now: Int64) -> ClaimRequest?
    /// A transaction committed the endings of `ended` and claimed `jobs` as `request` asked (none
    /// without a request): the ended attempts take no room any more, and the claimed ones run.
    func committed(_ ended: [AttemptID], claimed jobs: [ClaimedJob], for request: ClaimRequest?)
    /// The transaction failed: gives back the room `request` reserved.
    func abandon(_ request: ClaimRequest)
}

/// Records the ends of attempts in groups: one transaction commits every ending reported while the
/// previous transaction was being written (group commit).
///
/// Each caller waits until the transaction holding its ending has committed, so nobody hears of an
/// outcome the file does not have. One flusher runs at a time; at a low rate each ending gets its
/// own transaction at once, at a high rate endings share one and the write cost is spread over them.
/// With a refiller (the engine whose attempts end), the same transaction also claims the jobs that
/// take the ended attempts' places (acknowledge-and-fetch), so a busy engine commits once per group
/// rather than twice. Each caller names its refiller; the recorder keeps none between calls.
final class AttemptRecorder: Sendable {
    private typealias Waiter = (
        attempt: FinishedAttempt, refiller: (any AttemptRefiller)?, continuation: CheckedContinuation<JobState?, any Error>
    )

    private struct State {
        var waiting: [Waiter] = []
        var flushing = false
    }

    private let state = Mutex(State())
    private let store: any JobStore
    private let time: any TimeSource

    /// Records into `store`, stamping each transaction with the time by `time`.
    init(store: any JobStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    /// Records `attempt`'s end and returns once it is committed.
    ///
    /// - Parameters:
    ///   - alone: No other attempt runs in this process, so no other ending is coming to share the
    ///     transaction: it starts at once on this thread.
    ///   - refiller: What claims more jobs in the transaction that records this ending (the
    ///     engine, which claims nothing unless it runs); nil claims nothing.
    /// - Returns: The state the job is now in, or nil if the worker no longer held its lease and
    ///   nothing was recorded.
    /// - Throws: The storage error that failed the transaction holding this ending.
    func record(_ attempt: FinishedAttempt, alone: Bool = false, refiller: (any AttemptRefiller)? = nil) async throws -> JobState? {
        try await withCheckedThrowingContinuation { continuation in
            let startsFlusher = state.withLock { state in
                state.waiting.append((attempt, refiller, continuation))
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            guard startsFlusher else { return }
            // Alone, the transaction is written on this thread, which waits for it anyway: scheduled,
            // it cost a hand-off to another thread and one back for every job run one at a time.
            // Its own task all the same, so the commit does not share this attempt's cancellation.
            // Among others, the scheduled flusher starts a little later, with more endings to share
            // its transaction (committing at once cost a busy engine a sixth of its rate).
            if !alone || startOnThisThread(preferring: store.preferredTaskExecutor, { await self.flush(onlyOneGroup: true) }) == nil {
                Task(executorPreference: store.preferredTaskExecutor) { await self.flush() }
            }
        }
    }

    /// Commits waiting endings, a group per transaction, until none is left.
    ///
    /// - Parameter onlyOneGroup: Commits one group, then leaves the endings that came meanwhile to
    ///   a scheduled flusher: the thread that started this one goes back to its attempt.
    private func flush(onlyOneGroup: Bool = false) async {
        while true {
            let group = state.withLock { state in
                defer { state.waiting.removeAll(keepingCapacity: true) }
                if state.waiting.isEmpty { state.flushing = false }
                return state.waiting
            }
            if group.isEmpty { return }
            let attempts = group.map(\.attempt)
            let now = time.nowMilliseconds
            // The endings of one engine share a transaction: its refiller claims for all of them.
            let refiller = group.first { $0.refiller != nil }?.refiller
            let request = refiller?.refillRequest(freeing: attempts.count, now: now)
            do {
                let result = try await store.finish(attempts, now: now, thenClaim: request)
                // Before the attempts hear of it: an attempt that ends at once after it must find
                // its predecessor's room free, or its own refill claims nothing.
                refiller?.committed(attempts.map(\.attempt), claimed: result.claimed, for: request)
                for waiter in group { waiter.continuation.resume(returning: result.states[waiter.attempt.id]) }
            } catch {
                if let refiller, let request { refiller.abandon(request) }
                for waiter in group { waiter.continuation.resume(throwing: error) }
            }
            if onlyOneGroup {
                let more = state.withLock { state in
                    if state.waiting.isEmpty { state.flushing = false }
                    return !state.waiting.isEmpty
                }
                if more { Task(executorPreference: store.preferredTaskExecutor) { await self.flush() } }
                return
            }
        }
    }
}
