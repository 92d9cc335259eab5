import DurableQueue
import Logging
import PostgresNIO
import Synchronization

/// What other nodes changed, heard on one connection that `LISTEN`s to the schema's channel.
///
/// Every write transaction of the store sends a notification before it commits; PostgreSQL delivers
/// it at the commit. The feed counts them (the store's change token) and calls the observers. When
/// the listening connection is lost the feed says so in the log, calls the observers once (idle
/// engines then poll every poll interval: ``PostgresJobStore/hearsChanges`` is false) and the token
/// changes at every read, until it listens again (a second later, and then every second).
final class ChangeFeed: Sendable {
    private struct State {
        var count: Int64 = 0
        var listening = false
        /// Whether the connection was lost since the feed last listened: the next listen is logged.
        var lost = false
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

    /// Whether the listening connection is up.
    var isListening: Bool { state.withLock { $0.listening } }

    /// Calls `observer` at every notification.
    func observe(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Listens until the task is cancelled on a connection `connect` opens, outside the store's
    /// pool, opening another (after a second) whenever it is lost. Outside the pool: after the
    /// server had ended a pooled listening connection (`pg_terminate_backend`), the next claim
    /// of the engine sometimes waited past 5 s for an answer.
    func listen(channel: String, logger: Logger, connect: @Sendable () async throws -> PostgresConnection) async {
        while !Task.isCancelled {
            var failure: (any Error)?
            do {
                let connection = try await connect()
                do {
                    try await connection.listen(on: channel) { notifications in
                        if state.withLock({ $0.lost }) {
                            logger.info("listening for other nodes' changes again", metadata: ["channel": "\(channel)"])
                        }
                        // Changes made while nobody listened were missed: count one now.
                        setListening(true)
                        for try await _ in notifications { changed() }
                    }
                } catch {
                    failure = error
                }
                try? await connection.close()
            } catch {
                failure = error
            }
            guard !Task.isCancelled else { return }
            if isListening {
                logger.info(
                    "lost the connection that listens for other nodes' changes; engines poll until it listens again",
                    metadata: ["channel": "\(channel)", "error": "\(failure.map { "\($0)" } ?? "the notifications ended")"])
                state.withLock { $0.lost = true }
                setListening(false)
                // Idle engines wake, and poll from now on.
                changed()
            } else if let failure {
                logger.debug("listening for changes failed; polling until it works again: \(failure)")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func setListening(_ listening: Bool) {
        state.withLock { state in
            state.listening = listening
            if listening { state.lost = false }
        }
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
