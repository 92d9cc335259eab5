/// What a handler asks of a hand-off (``JobContext/handOff(to:reference:deadline:start:)``): the
/// carrier, what it calls the transfer, and how long it may take, in milliseconds counted from the
/// time the store records the hand-off (its history row's); nil for no deadline.
package struct HandOffRequest: Sendable, Hashable {
    package var carrier: String
    package var reference: String
    package var timeout: Int64?

    package init(carrier: String, reference: String, timeout: Int64?) {
        self.carrier = carrier
        self.reference = reference
        self.timeout = timeout
    }

    /// The hand-off as the store records it at `now`: its deadline `timeout` after `now`.
    package func target(recordedAt now: Int64) -> HandOffTarget {
        HandOffTarget(carrier: carrier, reference: reference, deadline: timeout.map { now + $0 })
    }
}

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
