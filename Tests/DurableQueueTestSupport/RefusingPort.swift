import Foundation

/// A port of 127.0.0.1 that refuses connections for as long as this value lives: a TCP socket bound
/// to it but not listening. Unlike the port of a server just shut down, no other test's server can
/// be given it meanwhile (which made a "refused" connection reach a stranger and wait).
package final class RefusingPort: Sendable {
    /// The port number.
    package let port: Int
    private let socket: Int32

    /// Binds a socket to a free port chosen by the kernel.
    package init() throws {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else {
            close(socket)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE)
        }
        self.socket = socket
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }
}
