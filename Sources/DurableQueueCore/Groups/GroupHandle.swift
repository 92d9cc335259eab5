/// A sequence or concurrent group in the queue file: its id, state and result, and a way to cancel it.
///
/// A handle is a cheap value; it works for groups run by this process or by any other on the file.
public struct GroupHandle: Sendable {
    /// The group's id.
    public let id: GroupID
    let queue: JobQueue

    /// The group's current state: `running`, then `succeeded`, `failed` or `cancelled`.
    ///
    /// - Throws: `groupNotFound`.
    public func state() async throws -> JobState {
        try await queue.store.groupState(id)
    }

    /// The group's result as it stands now, finished or not.
    public func snapshot() async throws -> GroupResult {
        try await queue.store.groupResult(id).resolvingPaths(with: queue.files)
    }

    /// Waits for the group to end and returns its result, whatever the outcome: check
    /// ``GroupResult/state`` and each child's.
    public func outcome() async throws -> GroupResult {
        try await queue.waitUntilGroupFinished(id, deadline: nil)
    }

    /// Waits for the group to end and returns its result if it succeeded.
    ///
    /// - Throws: `jobFailed` (with the reason, such as "step 'zip' failed") or `cancelled` when it
    ///   ended so; `groupNotFound`; `CancellationError` if the waiting task is cancelled.
    public func result() async throws -> GroupResult {
        try Self.succeeded(try await outcome())
    }

    /// Waits at most `timeout` for the group to end; see ``result()``. The group is not cancelled when
    /// the wait times out.
    ///
    /// - Throws: `timedOut`, or what ``result()`` throws.
    public func result(timeout: Duration) async throws -> GroupResult {
        try Self.succeeded(try await queue.waitUntilGroupFinished(id, deadline: queue.now + timeout.milliseconds))
    }

    /// Cancels the group and everything unfinished in it; see ``JobQueue/Jobs/cancel(group:)``.
    public func cancel() async throws {
        try await queue.jobs.cancel(group: id)
    }

    /// The group's states as they change, starting with the current one and ending after it ends.
    public var stateChanges: AsyncThrowingStream<JobState, any Error> {
        queue.changes { [id] store in
            let state = try await store.groupState(id)
            return (state, state.isTerminal)
        }
    }

    private static func succeeded(_ result: GroupResult) throws -> GroupResult {
        switch result.state {
        case .succeeded:
            return result
        case .cancelled:
            throw DurableQueueError(.cancelled, "group \(result.id) was cancelled: \(result.reason ?? "cancel requested")")
        default:
            throw DurableQueueError(.jobFailed, "group \(result.id) failed: \(result.reason ?? "a child failed")")
        }
    }
}
