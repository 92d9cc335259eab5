/// What recording an ending reads of its job's row, in any store: enough to fence the ending and
/// to resolve it by the one rule (``ResolvedEnding``).
package struct EndingRow: Sendable, Hashable {
    package var id: JobID
    package var state: JobState
    package var owner: String?
    package var attempts: Int
    package var maxAttempts: Int?
    package var cancelRequested: Bool
    package var queue: String
    package var throttleInterval: Int64
    package var group: GroupID?
    /// Attempts that saved a new checkpoint: they do not count against `maxAttempts`.
    package var progressed: Int
    /// The job's partition key: an end may start its key's throttle interval.
    package var partitionKey: String?

    package init(
        id: JobID, state: JobState, owner: String?, attempts: Int, maxAttempts: Int?, cancelRequested: Bool, queue: String,
        throttleInterval: Int64, group: GroupID?, progressed: Int, partitionKey: String? = nil
    ) {
        self.partitionKey = partitionKey
        self.id = id
        self.state = state
        self.owner = owner
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.cancelRequested = cancelRequested
        self.queue = queue
        self.throttleInterval = throttleInterval
        self.group = group
        self.progressed = progressed
    }

    /// Whether the row still shows `attempt` running under its owner: the fence of every ending.
    package func isRunning(_ attempt: FinishedAttempt) -> Bool {
        isRunning(attempt.attempt, owner: attempt.owner)
    }

    /// Whether the row shows `attempt` running under `owner`.
    package func isRunning(_ attempt: AttemptID, owner: String) -> Bool {
        state == .running && self.owner == owner && attempts == attempt.number
    }

    /// What `attempt`, which ``isRunning(_:)`` found running, does to the row at `now`.
    package func resolve(_ attempt: FinishedAttempt, now: Int64) -> ResolvedEnding {
        ResolvedEnding(
            attempt.outcome, attempts: attempts, maxAttempts: maxAttempts, progressedAttempts: progressed,
            cancelRequested: cancelRequested, now: now
        ).noting(attempt.note)
    }
}
