import DurableDownloads
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSession`'s errors as the download and request jobs read them.
enum URLSessionErrors {
    /// `error`, met while fetching `url`, as a `TransportError` with a plain message naming the host
    /// and port; a cancellation is a `CancellationError` (the job stopped the transfer).
    static func mapped(_ error: any Error, url: URL) -> any Error {
        guard let error = error as? URLError else { return error }
        let place = TransportError.place(of: url)
        switch error.code {
        case .cancelled: return CancellationError()
        case .cannotConnectToHost: return TransportError("could not reach \(place): connection refused")
        case .cannotFindHost, .dnsLookupFailed: return TransportError("could not reach \(place): the host name does not resolve")
        case .timedOut: return TransportError("\(place) sent nothing for the request timeout")
        case .networkConnectionLost: return TransportError.closedEarly(url)
        case .notConnectedToInternet: return TransportError("could not reach \(place): not connected to a network")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return TransportError("the secure connection to \(place) failed: \(error.localizedDescription)")
        default: return TransportError("the request to \(place) failed: \(error.localizedDescription) (URLError \(error.code.rawValue))")
        }
    }
}
