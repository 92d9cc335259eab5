import DurableDownloads
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An `HTTPTransport` over AsyncHTTPClient: in-process, on every platform.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client that sends the requests.
    public let client: HTTPClient

    /// A transport over `client`.
    public init(client: HTTPClient) {
        self.client = client
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        switch request.body {
        case .bytes(let data): outgoing.body = .bytes(ByteBuffer(bytes: data))
        case .file(let path, let size, let sent):
            outgoing.body = .stream(FileChunks(path: path, size: size, sent: sent), length: .known(Int64(size)))
        case nil: break
        }
        let url = request.url
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: .nanoseconds(request.timeout.nanoseconds))
        } catch {
            throw Self.mapped(error, url: url)
        }
        let chunks = BodyChunks(response.body.makeAsyncIterator())
        return TransportResponse(
            status: Int(response.status.code), headers: response.headers.map { HeaderField($0.name, $0.value) },
            body: TransportBody {
                do {
                    return try await chunks.next()
                } catch {
                    throw Self.mapped(error, url: url)
                }
            })
    }

    /// `error`, thrown while fetching `url`, as a `TransportError` with a plain message; errors
    /// that are not about the connection (a cancellation) pass through.
    static func mapped(_ error: any Error, url: URL) -> any Error {
        let place = TransportError.place(of: url)
        switch error {
        case let error as IOError:
            return TransportError("could not reach \(place): \(TransportError.reason(errno: error.errnoCode))")
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return TransportError("could not reach \(place): the host name does not resolve")
            }
            let last = error.connectionErrors.last?.error
            return TransportError("could not reach \(place): \(last.map(describe) ?? "no address could be connected to")")
        case let error as HTTPClientError where error == .connectTimeout:
            return TransportError("could not connect to \(place) within the connect timeout")
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return TransportError.closedEarly(url)
        case let error as HTTPClientError where error == .readTimeout:
            return TransportError("\(place) sent nothing for the read timeout")
        case let error as HTTPClientError:
            return TransportError("the request to \(place) failed: \(error)")
        case let error as ChannelError:
            return TransportError("the connection to \(place) failed: \(describe(error))")
        default:
            return error
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError: TransportError.reason(errno: error.errnoCode)
        case ChannelError.connectTimeout: "the connection attempt timed out"
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.eof: "the connection was closed"
        default: "\(error)"
        }
    }
}

/// A response body's iterator, pulled by one task at a time (the job reading the body).
private final class BodyChunks: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator

    init(_ iterator: HTTPClientResponse.Body.AsyncIterator) {
        self.iterator = iterator
    }

    func next() async throws -> [UInt8]? {
        try await iterator.next().map { Array($0.readableBytesView) }
    }
}

/// A file's content in 64 KiB chunks, telling how much was taken as they are.
private struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    let size: Int
    let sent: @Sendable (Int) async -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        let sent: @Sendable (Int) async -> Void
        var total = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let handle, let data = try handle.read(upToCount: 65_536), !data.isEmpty else { return nil }
            total += data.count
            await sent(total)
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: FileHandle(forReadingAtPath: path), sent: sent)
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
