/// A running attempt's lease after a heartbeat.
package struct HeldLease: Sendable, Hashable {
    package var attempt: AttemptID
    /// Set when someone asked to cancel the job: the worker must stop it.
    package var cancelRequested: Bool
    /// Whether the heartbeat extended the lease. False when another transaction held the job's row
    /// at that moment (a store whose heartbeat never waits for a lock skips it): the attempt is still
    /// held, its lease unchanged until the next heartbeat.
    package var isRenewed: Bool

    package init(attempt: AttemptID, cancelRequested: Bool, isRenewed: Bool = true) {
        self.attempt = attempt
        self.cancelRequested = cancelRequested
        self.isRenewed = isRenewed
    }
}

/// A job whose worker stopped renewing its lease, and the state it was returned to.
package struct RecoveredJob: Sendable, Hashable {
    package var id: JobID
    package var previousOwner: String?
    /// `pending` to run again, `failed` when no attempt is left or the job is poison, `cancelled`
    /// when a cancel was requested.
    package var state: JobState
    /// The job's queue and kind (a metric's dimensions).
    package var queue: String
    package var kind: String
    /// Whether the job failed as a poison job (``LostAttempts``).
    package var isPoison: Bool
    /// Where the attempt was handed off, when a hand-off passed its deadline: its carrier must stop it.
    package var handOff: HandOffTarget?

    package init(
        id: JobID, previousOwner: String?, state: JobState, queue: String, kind: String, isPoison: Bool = false,
        handOff: HandOffTarget? = nil
    ) {
        self.id = id
        self.previousOwner = previousOwner
        self.state = state
        self.queue = queue
        self.kind = kind
        self.isPoison = isPoison
        self.handOff = handOff
    }
}
