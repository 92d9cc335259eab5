import DurableQueue
import Hummingbird
import ServiceLifecycle

extension Dashboard {
    /// `/api/events`: server-sent events, a `change` event whenever the store changed (another
    /// process committed, or this dashboard acted), checked every refresh interval, and a comment
    /// every 15 s so that proxies keep the connection. Ends when the dashboard shuts down.
    ///
    /// The stream reads the store's change token before it sends its first line (`retry`): a client
    /// that has that line hears of every change committed after it.
    func liveUpdates() -> Response {
        let interval = configuration.refreshInterval
        let body = ResponseBody { [queue, actions] writer in
            var last = "\(try await queue.reader.changeToken())-\(actions.value)"
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            var quiet = Duration.zero
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled && !Task.isShuttingDownGracefully else { break }
                quiet += interval
                let token = "\(try await queue.reader.changeToken())-\(actions.value)"
                if last != token {
                    try await writer.write(ByteBuffer(string: "event: change\ndata: \(token)\n\n"))
                    quiet = .zero
                } else if quiet >= .seconds(15) {
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                    quiet = .zero
                }
                last = token
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}
