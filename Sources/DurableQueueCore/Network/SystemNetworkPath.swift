#if canImport(Network)
    import Network
    import Dispatch

    extension NetworkConditions {
        /// Conditions that follow the system's path monitor (`NWPathMonitor`): offline while no
        /// path is satisfied, metered while the path is expensive or constrained (Low Data Mode),
        /// unmetered otherwise. The monitor runs for as long as the conditions live.
        public static func systemPath() -> NetworkConditions {
            let conditions = NetworkConditions(.offline)
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { [weak conditions] path in
                guard let conditions else {
                    monitor.cancel()
                    return
                }
                conditions.update(
                    path.status != .satisfied ? .offline : path.isExpensive || path.isConstrained ? .metered : .unmetered)
            }
            monitor.start(queue: DispatchQueue(label: "DurableQueue.network-path"))
            return conditions
        }
    }
#endif
