import DurableQueue
import Logging
import PostgresNIO
import Synchronization

/// What other nodes changed, heard on one connection that `LISTEN`s to the schema's channel.
///
/// Every write transaction of the store sends a notification before it commits; PostgreSQL delivers
/// it at the commit. The feed counts them (the store's change token) and calls the observers. While
/// the listening connection is down, the token changes at every read, so that engines fall back to
/// polling.
final class ChangeFeed: Sendable {
    private struct State {
        var count: Int64 = 0
        var listening = false
        var observers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// A number that moves whenever a notification came, or at every read while none can come.
    var token: Int64 {
        state.withLock { state in
            if !state.listening { state.count &+= 1 }
            return state.count
        }
    }

    /// Calls `observer` at every notification.
    func observe(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Listens until the task is cancelled, connecting again (after a second) whenever the
    /// connection is lost.
    func listen(client: PostgresClient, channel: String, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        // Changes made while nobody listened were missed: count one now.
                        setListening(true)
                        for try await _ in notifications { changed() }
                    }
                }
            } catch {
                if !Task.isCancelled { logger.debug("listening for changes failed; polling until it works again: \(error)") }
            }
            setListening(false)
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func setListening(_ listening: Bool) {
        state.withLock { $0.listening = listening }
        if listening { changed() }
    }

    private func changed() {
        let observers = state.withLock { state in
            state.count &+= 1
            return state.observers
        }
        for observer in observers { observer() }
    }
}
