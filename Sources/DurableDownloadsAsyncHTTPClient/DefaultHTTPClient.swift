import AsyncHTTPClient
import NIOCore
import Synchronization

/// The HTTP clients `HTTPJobs` uses when given none: the shared client's settings with a short
/// connect timeout (the shared one waits 90 s, retrying a refused connection all that time). One
/// client per timeout, kept for the life of the process, as `HTTPClient.shared` is.
enum DefaultHTTPClient {
    private static let clients = Mutex<[Duration: HTTPClient]>([:])

    /// The client that gives up connecting after `connectTimeout`.
    static func connecting(within connectTimeout: Duration) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[connectTimeout] { return client }
            var configuration = HTTPClient.Configuration.singletonConfiguration
            configuration.timeout.connect = TimeAmount(connectTimeout)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[connectTimeout] = client
            return client
        }
    }
}
