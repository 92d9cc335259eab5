/// A running job whose lease expired, or whose worker's process is gone, or a handed-off job whose
/// hand-off passed its deadline, as recovery reads it in any store; ``verdict(deadOwners:lostAttemptLimit:)``
/// is the one rule of what becomes of it, poison jobs included.
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
    /// What the row says of the attempts lost before this one: see ``LostAttempts``.
    package var lost: LostAttempts
    /// Whether the interrupted attempt saved a new checkpoint or committed a durable step.
    package var madeProgress: Bool

    package init(
        id: JobID, owner: String?, attempts: Int, countedAttempts: Int, maxAttempts: Int?, cancelRequested: Bool,
        handOff: HandOffTarget? = nil, lost: LostAttempts = LostAttempts(), madeProgress: Bool = false
    ) {
        self.id = id
        self.owner = owner
        self.attempts = attempts
        self.countedAttempts = countedAttempts
        self.maxAttempts = maxAttempts
        self.cancelRequested = cancelRequested
        self.handOff = handOff
        self.lost = lost
        self.madeProgress = madeProgress
    }

    /// What recovery writes: the job's new state, its history row's reason, its error, and its
    /// count of attempts lost in a row.
    package struct Verdict: Sendable, Hashable {
        /// `pending` to run again, `cancelled` when a cancel was requested, `failed` when no attempt
        /// is left or the job is poison.
        package var state: JobState
        package var reason: String
        package var failure: JobFailure
        /// The job's attempts lost in a row, this one included (none after a hand-off's deadline:
        /// an attempt that ended otherwise starts the count again).
        package var lost: LostAttempts
        /// Whether the job failed as a poison job: its worker stopped during `lostAttemptLimit`
        /// attempts in a row, none of which made progress.
        package var isPoison: Bool
    }

    /// The interrupted attempt counts: the job is `cancelled` if a cancel was requested; `failed`
    /// as a poison job if its worker stopped during `lostAttemptLimit` attempts in a row that made no
    /// progress (nil: never), even with attempts left; `failed` if that was its last attempt; else
    /// `pending` to run again. `deadOwners` are the workers whose process is known to be gone (the
    /// reason says which cause it was).
    package func verdict(deadOwners: [String], lostAttemptLimit: Int?) -> Verdict {
        let worker = owner ?? "unknown"
        let cause = deadOwners.contains(worker) ? "its process is gone" : "lease expired"
        let interrupted =
            if let handOff {
                "the hand-off of attempt \(attempts) to '\(handOff.carrier)' ('\(handOff.reference)') passed its deadline"
            } else {
                "worker '\(worker)' stopped during attempt \(attempts) (\(cause))"
            }
        let lost = handOff == nil ? self.lost.after(losing: attempts, madeProgress: madeProgress) : LostAttempts()
        let isPoison = !cancelRequested && handOff == nil && lost.isPoison(limit: lostAttemptLimit)
        let (state, reason): (JobState, String)
        if cancelRequested {
            (state, reason) = (.cancelled, "cancel requested; \(interrupted)")
        } else if isPoison {
            (state, reason) = (.failed, "\(interrupted); \(LostAttempts.poisonReason(lost.inARow))")
        } else if let maxAttempts, countedAttempts >= maxAttempts {
            (state, reason) = (.failed, "\(interrupted); no attempts left")
        } else {
            (state, reason) = (.pending, interrupted)
        }
        let failure =
            if isPoison {
                JobFailure(type: LostAttempts.poisonFailureType, message: "\(interrupted); \(LostAttempts.poisonReason(lost.inARow))", retryable: false)
            } else {
                JobFailure(type: handOff == nil ? "LeaseExpired" : "HandOffDeadline", message: interrupted, retryable: state == .pending)
            }
        return Verdict(state: state, reason: reason, failure: failure, lost: lost, isPoison: isPoison)
    }
}
