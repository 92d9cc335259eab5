import Synchronization

/// The network as a queue's engine sees it, for the jobs that need it (``Job/networkRequirement``):
/// set it from wherever the application learns of the network (a path monitor, a reachability
/// callback, a test), and the engine claims only jobs whose requirement the status meets; a
/// change wakes it at once. On Apple platforms `systemPath()` follows the system's path monitor.
///
/// For example:
/// ```swift
/// let network = NetworkConditions(.offline)
/// let queue = try JobQueue(path: "jobs.sqlite", configuration: .init(network: network))
/// // later, from the application's own monitor:
/// network.update(.unmetered)
/// ```
public final class NetworkConditions: Sendable {
    private struct State {
        var status: NetworkStatus
        var observers: [UInt64: @Sendable () -> Void] = [:]
        var nextObserver: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Conditions that start as `status`.
    public init(_ status: NetworkStatus = .unmetered) {
        state = Mutex(State(status: status))
    }

    /// The network now.
    public var status: NetworkStatus { state.withLock { $0.status } }

    /// Sets the network's status; engines waiting on it look again at once.
    public func update(_ status: NetworkStatus) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.status != status else { return [] }
            state.status = status
            return Array(state.observers.values)
        }
        for observer in observers { observer() }
    }

    /// Calls `onChange` after every change of the status, until the returned token is released.
    func observe(_ onChange: @escaping @Sendable () -> Void) -> NetworkObservation {
        let id = state.withLock { state in
            defer { state.nextObserver += 1 }
            state.observers[state.nextObserver] = onChange
            return state.nextObserver
        }
        return NetworkObservation { [weak self] in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
    }
}

/// Ends an observation of ``NetworkConditions`` when released.
final class NetworkObservation: Sendable {
    private let end: @Sendable () -> Void

    init(end: @escaping @Sendable () -> Void) {
        self.end = end
    }

    deinit { end() }
}
