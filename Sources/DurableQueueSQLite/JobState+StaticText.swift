import DurableQueueCore

extension JobState {
    /// ``rawValue`` as text that lives as long as the program, which a statement binds without a copy
    /// (see ``ParameterBinder``).
    var staticText: StaticString {
        switch self {
        case .scheduled: "scheduled"
        case .pending: "pending"
        case .blocked: "blocked"
        case .running: "running"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .handedOff: "handed_off"
        case .waiting: "waiting"
        case .parked: "parked"
        }
    }
}
