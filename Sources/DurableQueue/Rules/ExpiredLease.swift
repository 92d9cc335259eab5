/// A running job whose lease expired, or whose worker's process is gone, or a handed-off job whose
/// hand-off passed its deadline, as recovery reads it in any store; ``verdict(deadOwners:)`` is the
/// one rule of what becomes of it.
package struct ExpiredLease: Sendable, Hashable {
    package var id: JobID
    /// The worker that held the lease, if the row names one.
    package var owner: String?
    /// The job's attempt count: the number of the attempt that was interrupted.
    package var attempts: Int
    /// Attempts that count against `maxAttempts` (those that saved a new checkpoint do not).
    package var countedAttempts: Int
    package var maxAttempts: Int?
    package var cancelRequested: Bool
    /// Where the attempt was handed off, when it is a hand-off that passed its deadline.
    package var handOff: HandOffTarget?

    package init(
        id: JobID, owner: String?, attempts: Int, countedAttempts: Int, maxAttempts: Int?, cancelRequested: Bool,
        handOff: HandOffTarget? = nil
    ) {
        self.id = id
        self.owner = owner
        self.attempts = attempts
        self.countedAttempts = countedAttempts
        self.maxAttempts = maxAttempts
        self.cancelRequested = cancelRequested
        self.handOff = handOff
    }

    /// What recovery writes: the job's new state, its history row's reason, and its error.
    package struct Verdict: Sendable, Hashable {
        /// `pending` to run again, `cancelled` when a cancel was requested, `failed` when no attempt is left.
        package var state: JobState
        package var reason: String
        package var failure: JobFailure
    }

    /// The interrupted attempt counts: the job is `cancelled` if a cancel was requested, `failed`
    /// if that was its last attempt, else `pending` to run again. `deadOwners` are the workers
    /// whose process is known to be gone (the reason says which cause it was).
    package func verdict(deadOwners: [String]) -> Verdict {
        let worker = owner ?? "unknown"
        let cause = deadOwners.contains(worker) ? "its process is gone" : "lease expired"
        let interrupted =
            if let handOff {
                "the hand-off of attempt \(attempts) to '\(handOff.carrier)' ('\(handOff.reference)') passed its deadline"
            } else {
                "worker '\(worker)' stopped during attempt \(attempts) (\(cause))"
            }
        let (state, reason): (JobState, String)
        if cancelRequested {
            (state, reason) = (.cancelled, "cancel requested; \(interrupted)")
        } else if let maxAttempts, countedAttempts >= maxAttempts {
            (state, reason) = (.failed, "\(interrupted); no attempts left")
        } else {
            (state, reason) = (.pending, interrupted)
        }
        return Verdict(state: state, reason: reason, failure: JobFailure(type: handOff == nil ? "LeaseExpired" : "HandOffDeadline", message: interrupted, retryable: state == .pending))
    }
}
