import NIOCore
import NIOHTTP1
import NIOPosix

/// The demo's own web server: generated files at `http://127.0.0.1:<port>/files/<name>`, sent at a
/// limited rate (so that progress shows) with `Range` support (so that an interrupted download
/// resumes where it stopped). Offline: it listens on 127.0.0.1 only, on a port the kernel picks.
final class DemoFileServer: Sendable {
    /// The files it serves, by name, and their sizes.
    let files: [String: Int]
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// The port it listens on.
    var port: Int { channel.localAddress?.port ?? 0 }

    /// Starts serving `files` at `bytesPerSecond` per response, on `port` (0: one the kernel picks).
    init(files: [String: Int], bytesPerSecond: Int, port: Int) async throws {
        self.files = files
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        do {
            channel = try await Self.bind(group: group, files: files, bytesPerSecond: bytesPerSecond, port: port)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private static func bind(group: MultiThreadedEventLoopGroup, files: [String: Int], bytesPerSecond: Int, port: Int)
        async throws -> any Channel
    {
        try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(FileHandler(files: files, bytesPerSecond: bytesPerSecond))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
    }

    /// Stops it.
    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// The content of every demo file repeats with this prime period: a resume at a wrong offset
    /// would show in the file's SHA-256.
    static let period = 65_521
    static let pattern: [UInt8] = (0..<period).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    /// Appends the content bytes `offset..<offset + count` to `buffer`.
    static func write(from offset: Int, count: Int, to buffer: inout ByteBuffer) {
        var position = offset
        while position < offset + count {
            let start = position % period
            let length = min(offset + count - position, period - start)
            pattern.withUnsafeBytes { _ = buffer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
            position += length
        }
    }

    /// Answers `GET /files/<name>` with the file (from a `Range: bytes=N-` offset), anything else with 404.
    private final class FileHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let files: [String: Int]
        let bytesPerSecond: Int
        private var head: HTTPRequestHead?

        init(files: [String: Int], bytesPerSecond: Int) {
            self.files = files
            self.bytesPerSecond = bytesPerSecond
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body: break
            case .end: if let head { respond(to: head, context: context) }
            }
        }

        private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
            let name = head.uri.hasPrefix("/files/") ? String(head.uri.dropFirst("/files/".count)) : ""
            guard head.method == .GET || head.method == .HEAD, let size = files[name] else {
                var headers = HTTPHeaders([("Content-Length", "0")])
                headers.add(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .notFound, headers: headers))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            var start = 0
            var status = HTTPResponseStatus.ok
            var headers = HTTPHeaders([("Accept-Ranges", "bytes"), ("ETag", "\"demo-1\""), ("Content-Type", "application/octet-stream")])
            if let range = head.headers.first(name: "Range"), range.hasPrefix("bytes="),
                let from = Int(range.dropFirst("bytes=".count).prefix { $0.isNumber }), from < size
            {
                start = from
                status = .partialContent
                headers.add(name: "Content-Range", value: "bytes \(from)-\(size - 1)/\(size)")
            }
            headers.add(name: "Content-Length", value: "\(size - start)")
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            if head.method == .HEAD {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                sendBody(from: start, to: size, context: context)
            }
        }

        /// Sends 32 KiB at a time, each once the previous one was written, paced to the rate.
        private func sendBody(from offset: Int, to end: Int, context: ChannelHandlerContext) {
            guard offset < end else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            let count = min(32_768, end - offset)
            var buffer = context.channel.allocator.buffer(capacity: count)
            DemoFileServer.write(from: offset, count: count, to: &buffer)
            let loop = context.eventLoop
            let pause = TimeAmount.nanoseconds(Int64(count) * 1_000_000_000 / Int64(bytesPerSecond))
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).whenComplete { result in
                guard case .success = result else { return }  // the client went away
                loop.scheduleTask(in: pause) {
                    bound.value.handler.sendBody(from: offset + count, to: end, context: bound.value.context)
                }
            }
        }
    }
}
