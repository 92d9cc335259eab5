#if canImport(Darwin)
    import Foundation

    extension URLSessionDownloadCarrier {
        /// The system delivered the background session's pending events (after a relaunch): once
        /// each is reported, the handler given to ``eventsDelivered(_:)`` is called.
        public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            eventsFinished()
        }
    }
#endif
