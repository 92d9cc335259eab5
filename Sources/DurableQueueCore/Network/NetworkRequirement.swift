/// What a job type needs of the network to run (``Job/networkRequirement``): while the queue's
/// ``NetworkConditions`` do not meet it, its jobs wait in `pending` without spending an attempt.
public enum NetworkRequirement: String, Sendable, Hashable, CaseIterable {
    /// Runs without the network.
    case notRequired
    /// Needs a connection, metered or not.
    case connected
    /// Needs a connection that is not metered (not cellular, not a personal hotspot, not Low Data
    /// Mode): a large download that should not spend someone's data plan.
    case unmetered
}

/// The network as this process sees it (see ``NetworkConditions``).
public enum NetworkStatus: String, Sendable, Hashable, CaseIterable {
    /// No connection.
    case offline
    /// A connection that costs (cellular, a personal hotspot) or is constrained (Low Data Mode).
    case metered
    /// A connection without such cost.
    case unmetered

    /// Whether a job that needs `requirement` may run now.
    public func meets(_ requirement: NetworkRequirement) -> Bool {
        switch requirement {
        case .notRequired: true
        case .connected: self != .offline
        case .unmetered: self == .unmetered
        }
    }
}
