import Synchronization

/// Commits the enqueues of concurrent callers together: the jobs that callers hand in while a
/// transaction is being written share the next one (group commit), and each caller returns once the
/// transaction holding its job has committed.
///
/// There is no background task: a caller that finds no commit under way leads, committing its own
/// job with every job waiting at that moment on its own thread; its followers wait. When the leader
/// is done it hands the lead to the first caller that arrived meanwhile. A lone caller leads at once
/// and pays nothing for the others, many callers share commits (and with ``Durability/powerLoss``
/// their fsyncs).
final class EnqueueCommitter: Sendable {
    /// What a waiting caller is told: its job's outcome, or that it leads the next commit.
    private enum Turn: Sendable {
        case committed(Result<EnqueueOutcome, DurableQueueError>)
        case lead
    }

    private typealias Follower = (job: NewJob, continuation: CheckedContinuation<Turn, Never>)

    private struct State {
        var leading = false
        var followers: [Follower] = []
    }

    private let state = Mutex(State())
    private let store: any JobStore
    private let time: any TimeSource

    /// Commits into `store`, stamping each transaction with the time by `time`.
    init(store: any JobStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    /// Enqueues `job` (already validated) and returns once it is committed.
    ///
    /// - Throws: The ``DurableQueueError`` that failed the transaction holding this job.
    func enqueue(_ job: consuming NewJob) async throws -> EnqueueOutcome {
        let leadsAtOnce = state.withLock { state in
            guard !state.leading else { return false }
            state.leading = true
            return true
        }
        if leadsAtOnce { return try await lead(with: job) }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leadsNow = state.withLock { state in
                guard state.leading else {
                    state.leading = true
                    return true
                }
                state.followers.append((job, continuation))
                return false
            }
            if leadsNow { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .committed(let result): return try result.get()
        case .lead: return try await lead(with: job)
        }
    }

    /// Commits `job` and the followers' jobs in one transaction, tells each follower, and hands the
    /// lead to the first caller that came meanwhile (or gives it up).
    private func lead(with job: consuming NewJob) async throws -> EnqueueOutcome {
        let followers = state.withLock { state in
            defer { state.followers.removeAll() }
            return state.followers
        }
        // The leader's job moves into the transaction's list rather than being copied into it.
        var jobs: [NewJob] = []
        jobs.reserveCapacity(1 + followers.count)
        jobs.append(job)
        for follower in followers { jobs.append(follower.job) }
        let now = time.nowMilliseconds
        let result: Result<[EnqueueOutcome], DurableQueueError>
        do {
            result = .success(try await store.enqueue(jobs, now: now))
        } catch {
            result = .failure(DurableQueueError(storeError: error, operation: "enqueue", location: store.location))
        }
        let next = state.withLock { state -> Follower? in
            guard !state.followers.isEmpty else {
                state.leading = false
                return nil
            }
            return state.followers.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        for (index, follower) in followers.enumerated() {
            follower.continuation.resume(returning: .committed(result.map { $0[index + 1] }))
        }
        return try result.get()[0]
    }
}
