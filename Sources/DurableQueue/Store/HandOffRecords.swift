/// Where a handed-off attempt went: the carrier, what the carrier calls the transfer, and when the
/// hand-off times out (milliseconds since 1970; nil: never).
package struct HandOffTarget: Sendable, Hashable {
    package var carrier: String
    package var reference: String
    package var deadline: Int64?

    package init(carrier: String, reference: String, deadline: Int64?) {
        self.carrier = carrier
        self.reference = reference
        self.deadline = deadline
    }
}

/// A job handed off now, as a carrier's reconciliation reads it.
package struct HandedOffJob: Sendable, Hashable {
    /// The job and the attempt that was handed off.
    package var attempt: AttemptID
    /// What the carrier calls the transfer.
    package var reference: String

    package init(attempt: AttemptID, reference: String) {
        self.attempt = attempt
        self.reference = reference
    }
}
