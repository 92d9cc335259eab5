/// A running attempt's lease after a heartbeat.
package struct HeldLease: Sendable, Hashable {
    package var attempt: AttemptID
    /// Set when someone asked to cancel the job: the worker must stop it.
    package var cancelRequested: Bool

    package init(attempt: AttemptID, cancelRequested: Bool) {
        self.attempt = attempt
        self.cancelRequested = cancelRequested
    }
}

/// A job whose worker stopped renewing its lease, and the state it was returned to.
package struct RecoveredJob: Sendable, Hashable {
    package var id: JobID
    package var previousOwner: String?
    /// `pending` to run again, `failed` when no attempt is left, `cancelled` when a cancel was requested.
    package var state: JobState

    package init(id: JobID, previousOwner: String?, state: JobState) {
        self.id = id
        self.previousOwner = previousOwner
        self.state = state
    }
}
