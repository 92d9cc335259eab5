import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Which networks a transfer may use: `URLSession`'s per-request settings. On Linux, where
    /// FoundationNetworking knows no cellular, expensive or constrained networks, they change nothing.
    public struct NetworkAccess: Sendable, Hashable {
        /// Whether requests may use a cellular network.
        public var allowsCellular: Bool
        /// Whether requests may use a network the system considers expensive (cellular, a hotspot).
        public var allowsExpensive: Bool
        /// Whether requests may use a network in Low Data Mode.
        public var allowsConstrained: Bool

        /// Every network allowed unless said otherwise.
        public init(allowsCellular: Bool = true, allowsExpensive: Bool = true, allowsConstrained: Bool = true) {
            self.allowsCellular = allowsCellular
            self.allowsExpensive = allowsExpensive
            self.allowsConstrained = allowsConstrained
        }

        /// Sets the settings on a session's configuration (a background session applies them there).
        func apply(to configuration: URLSessionConfiguration) {
            configuration.allowsCellularAccess = allowsCellular
            #if canImport(Darwin)
                configuration.allowsExpensiveNetworkAccess = allowsExpensive
                configuration.allowsConstrainedNetworkAccess = allowsConstrained
            #endif
        }

        /// Sets the settings on one request.
        func apply(to request: inout URLRequest) {
            request.allowsCellularAccess = allowsCellular
            #if canImport(Darwin)
                request.allowsExpensiveNetworkAccess = allowsExpensive
                request.allowsConstrainedNetworkAccess = allowsConstrained
            #endif
        }
    }
}
