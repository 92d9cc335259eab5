import Synchronization

/// Records the steps of attempts running at once in groups: one transaction commits every step
/// reported while the previous transaction was being written (group commit), as
/// ``AttemptRecorder`` does for endings. Each caller waits until its step is committed.
final class StepRecorder: Sendable {
    private typealias Waiter = (step: PendingStep, continuation: CheckedContinuation<Bool, any Error>)

    private struct State {
        var waiting: [Waiter] = []
        var flushing = false
    }

    private let state = Mutex(State())
    private let store: any JobStore

    init(store: any JobStore) {
        self.store = store
    }

    /// Records `step` and returns once it is committed: false if its attempt is no longer the job's
    /// current one (nothing was written).
    ///
    /// - Throws: `invalidArgument` for a name the job has already; the storage error that failed the
    ///   transaction.
    func record(_ step: PendingStep) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let startsFlusher = state.withLock { state in
                state.waiting.append((step, continuation))
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            if startsFlusher { Task(executorPreference: store.preferredTaskExecutor) { await self.flush() } }
        }
    }

    /// Commits waiting steps, a group per transaction, until none is left.
    private func flush() async {
        while true {
            let group = state.withLock { state in
                defer { state.waiting.removeAll(keepingCapacity: true) }
                if state.waiting.isEmpty { state.flushing = false }
                return state.waiting
            }
            if group.isEmpty { return }
            do {
                let results = try await store.recordSteps(group.map(\.step))
                for (waiter, result) in zip(group, results) { waiter.continuation.resume(with: result.mapError { $0 as any Error }) }
            } catch {
                for waiter in group { waiter.continuation.resume(throwing: error) }
            }
        }
    }
}
