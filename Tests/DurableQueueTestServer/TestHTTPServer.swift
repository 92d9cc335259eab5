import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on 127.0.0.1 for download and request tests: generated files with Range
/// and If-Range support (`/files/<name>`, where a name may hold slashes), injected faults, plain
/// statuses (`/status/<code>`), nginx-like error pages (`/html-status/<code>`) and an echo. Not a
/// product.
public final class TestHTTPServer: Sendable {
    /// A generated file served at `/files/<name>`.
    public struct Resource: Sendable {
        /// Its length in bytes.
        public var size: Int
        /// Its ETag (quoted when sent); change it to make resumes start over.
        public var etag: String
        /// Its Last-Modified header value.
        public var lastModified: String = "Sun, 22 Nov 2026 10:00:00 GMT"
        /// Whether responses carry the ETag and Last-Modified validators.
        public var sendsValidators = true
        /// Whether `Range` requests are honoured (else the whole file is sent with 200).
        public var supportsRanges = true
        /// Close the connection after this many body bytes of each response (then serve normally
        /// once `dropCount` responses have been cut).
        public var dropAfter: Int?
        /// How many responses to cut at `dropAfter`.
        public var dropCount = Int.max
        /// Stop sending (without closing) after this many body bytes of the next `dropCount`
        /// responses, instead of closing.
        public var stalls = false
        /// Statuses to answer the next requests with instead of the file, in order (e.g. 500, 429).
        public var failures: [Int] = []
        /// The Retry-After header sent with a 429 or 503 failure, in seconds.
        public var retryAfterSeconds: Int?
        /// At most this many body bytes per second per response (nil: as fast as possible).
        public var bytesPerSecond: Int?
        /// A `Content-Disposition` file name to send.
        public var contentDispositionName: String?

        /// A file of `size` bytes with ETag `etag`.
        public init(size: Int, etag: String = "v1") {
            self.size = size
            self.etag = etag
        }

        /// The content repeats with a prime period, so that a resume at a wrong offset shows.
        static let period = 65_521
        static let pattern: [UInt8] = (0..<period).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13 ^ $0) }

        /// Appends `count` content bytes from `offset` to `buffer`.
        static func write(from offset: Int, count: Int, to buffer: inout ByteBuffer) {
            var position = offset
            while position < offset + count {
                let start = position % period
                let length = min(offset + count - position, period - start)
                _ = pattern.withUnsafeBytes { buffer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
                position += length
            }
        }

        /// The whole content.
        public func content() -> [UInt8] {
            var buffer = ByteBuffer()
            Self.write(from: 0, count: size, to: &buffer)
            return buffer.readBytes(length: size) ?? []
        }
    }

    /// One request the server received.
    public struct Request: Sendable {
        public var method: String
        public var uri: String
        public var headers: [(String, String)]
        public var body: [UInt8]

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    private struct State {
        var resources: [String: Resource] = [:]
        var requests: [Request] = []
        var bodyBytesSent = 0
        var drops: [String: Int] = [:]
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state = NIOLockedValueBox(State())

    /// The port the server listens on.
    public var port: Int { channel.localAddress?.port ?? 0 }
    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on a free port of 127.0.0.1.
    public init() async throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = state
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(state: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Serves `resource` at `/files/<name>` (replacing what was there).
    public func serve(_ name: String, _ resource: Resource) {
        state.withLockedValue { $0.resources[name] = resource }
    }

    /// Changes the resource `name` in place.
    public func change(_ name: String, _ body: (inout Resource) -> Void) {
        state.withLockedValue { state in
            if var resource = state.resources[name] {
                body(&resource)
                state.resources[name] = resource
            }
        }
    }

    /// Every request received so far.
    public var requests: [Request] { state.withLockedValue { $0.requests } }
    /// Body bytes sent so far, over all responses.
    public var bodyBytesSent: Int { state.withLockedValue { $0.bodyBytesSent } }

    /// Stops the server.
    public func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }

    // MARK: - Handling

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let state: NIOLockedValueBox<State>
        private var head: HTTPRequestHead?
        private var body: [UInt8] = []

        init(state: NIOLockedValueBox<State>) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(var buffer):
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                guard let head else { return }
                respond(to: head, context: context)
            }
        }

        private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
            let request = Request(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
            let name = head.uri.hasPrefix("/files/") ? String(head.uri.dropFirst("/files/".count)) : ""
            let plan = state.withLockedValue { state -> Plan in
                state.requests.append(request)
                if head.uri.hasPrefix("/echo") { return .echo }
                if head.uri.hasPrefix("/status/") { return .status(Int(head.uri.dropFirst("/status/".count)) ?? 500, nil) }
                if head.uri.hasPrefix("/html-status/") { return .page(Int(head.uri.dropFirst("/html-status/".count)) ?? 500) }
                guard var resource = state.resources[name] else { return .status(404, nil) }
                if !resource.failures.isEmpty {
                    let status = resource.failures.removeFirst()
                    state.resources[name] = resource
                    return .status(status, resource.retryAfterSeconds)
                }
                let drop: Int? = (state.drops[name, default: 0] < resource.dropCount) ? resource.dropAfter : nil
                if drop != nil { state.drops[name, default: 0] += 1 }
                return .file(resource, drop: drop)
            }
            switch plan {
            case .echo:
                let headers = HTTPHeaders([("Content-Length", "\(request.body.count)"), ("X-Method", request.method)])
                send(status: .ok, headers: headers, body: request.body, context: context)
            case .status(let code, let retryAfter):
                var headers = HTTPHeaders([("Content-Length", "\(("status \(code)").utf8.count)")])
                if let retryAfter { headers.add(name: "Retry-After", value: "\(retryAfter)") }
                send(status: HTTPResponseStatus(statusCode: code), headers: headers, body: Array("status \(code)".utf8), context: context)
            case .page(let code):
                // What nginx sends with an error status.
                let status = HTTPResponseStatus(statusCode: code)
                let title = "\(code) \(status.reasonPhrase)"
                let page = Array("<html>\r\n<head><title>\(title)</title></head>\r\n<body>\r\n<center><h1>\(title)</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n".utf8)
                send(status: status, headers: HTTPHeaders([("Content-Length", "\(page.count)"), ("Content-Type", "text/html")]), body: page, context: context)
            case .file(let resource, let drop):
                serve(resource, request: request, drop: drop, context: context)
            }
        }

        private enum Plan {
            case echo
            case status(Int, Int?)
            /// An HTML error page with this status, as nginx sends.
            case page(Int)
            case file(Resource, drop: Int?)
        }

        private func send(status: HTTPResponseStatus, headers: HTTPHeaders, body: [UInt8], context: ChannelHandlerContext) {
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        private func serve(_ resource: Resource, request: Request, drop: Int?, context: ChannelHandlerContext) {
            var start = 0
            var status = HTTPResponseStatus.ok
            var headers = HTTPHeaders()
            if resource.sendsValidators {
                headers.add(name: "ETag", value: "\"\(resource.etag)\"")
                headers.add(name: "Last-Modified", value: resource.lastModified)
            }
            if let name = resource.contentDispositionName {
                headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(name)\"")
            }
            headers.add(name: "Accept-Ranges", value: resource.supportsRanges ? "bytes" : "none")
            if resource.supportsRanges, let range = request.header("Range"), range.hasPrefix("bytes="),
               let from = Int(range.dropFirst("bytes=".count).split(separator: "-").first ?? "")
            {
                let validator = request.header("If-Range")
                let matches = validator == nil || validator == "\"\(resource.etag)\"" || validator == resource.lastModified
                if matches {
                    if from >= resource.size {
                        headers.add(name: "Content-Range", value: "bytes */\(resource.size)")
                        headers.add(name: "Content-Length", value: "0")
                        send(status: .rangeNotSatisfiable, headers: headers, body: [], context: context)
                        return
                    }
                    start = from
                    status = .partialContent
                    headers.add(name: "Content-Range", value: "bytes \(from)-\(resource.size - 1)/\(resource.size)")
                }
            }
            headers.add(name: "Content-Length", value: "\(resource.size - start)")
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            let end = drop.map { min(resource.size, start + $0) } ?? resource.size
            sendBody(from: start, to: end, total: resource.size, resource: resource, context: context)
        }

        /// Sends the body in 64 KiB chunks, each after the previous was written (bounded memory),
        /// paced to `bytesPerSecond`; closes the connection early when `end` is short of `total`.
        private func sendBody(from offset: Int, to end: Int, total: Int, resource: Resource, context: ChannelHandlerContext) {
            guard offset < end else {
                if end < total && resource.stalls {
                    return  // stall: the connection stays open and silent
                } else if end < total {
                    context.close(promise: nil)
                } else {
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }
                return
            }
            let count = min(65_536, end - offset)
            var buffer = context.channel.allocator.buffer(capacity: count)
            Resource.write(from: offset, count: count, to: &buffer)
            let loop = context.eventLoop
            let state = self.state
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).whenComplete { result in
                guard case .success = result else { return }
                state.withLockedValue { $0.bodyBytesSent += count }
                guard let rate = resource.bytesPerSecond else {
                    return bound.value.handler.sendBody(
                        from: offset + count, to: end, total: total, resource: resource, context: bound.value.context)
                }
                loop.scheduleTask(in: .nanoseconds(Int64(count) * 1_000_000_000 / Int64(rate))) {
                    bound.value.handler.sendBody(
                        from: offset + count, to: end, total: total, resource: resource, context: bound.value.context)
                }
            }
        }
    }
}
