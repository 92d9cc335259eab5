import DurableQueue
import Logging
import PostgresNIO
import Synchronization

/// What other nodes changed, heard on one connection that `LISTEN`s to the schema's channel while
/// someone waits for it.
///
/// Every write transaction of the store sends a notification before it commits; PostgreSQL delivers
/// it at the commit. The feed counts them (the store's change token) and calls the observers.
///
/// It listens only while asked (``keepListening(for:)``: an idle engine or a waiting handle asks
/// before each wait), and stops once the time asked for has passed: a listening connection costs
/// the server a wake-up of its backend, and this process a read, at every commit of every node (an
/// awaited enqueue: 42 µs of server and 31 µs of client CPU of about 250 each). When the listening
/// connection is lost the feed says so in the log, calls the observers once (idle engines then poll
/// every poll interval: ``PostgresJobStore/hearsChanges`` is false) and the token changes at every
/// read, until it listens again (a second later, and then every second).
final class ChangeFeed: Sendable {
    private struct State {
        var count: Int64 = 0
        var listening = false
        /// Whether the connection was lost since the feed last listened: the next listen is logged.
        var lost = false
        var observers: [@Sendable () -> Void] = []
        /// Until when someone wants to hear changes; nil until someone first asks.
        var wantedUntil: ContinuousClock.Instant?
        /// The listening loop, waiting for someone to ask.
        var waiter: CheckedContinuation<Void, Never>?
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

    /// Listens (or goes on listening) for at least `duration` from now.
    func keepListening(for duration: Duration) {
        let until = ContinuousClock.now + duration
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.wantedUntil.map({ $0 < until }) ?? true { state.wantedUntil = until }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Until the task is cancelled: whenever someone wants to hear changes, listens on a connection
    /// `connect` opens, outside the store's pool, until nobody has for the time they asked; opens
    /// another (after a second) whenever it is lost. Outside the pool: after the server had ended
    /// a pooled listening connection (`pg_terminate_backend`), the next claim of the engine
    /// sometimes waited past 5 s for an answer.
    func listen(channel: String, logger: Logger, connect: @escaping @Sendable () async throws -> PostgresConnection) async {
        while !Task.isCancelled {
            await asked()
            guard !Task.isCancelled else { return }
            var failure: (any Error)?
            var unwanted = false
            do {
                let connection = try await connect()
                do {
                    unwanted = try await withThrowingTaskGroup(of: Bool.self) { group in
                        group.addTask {
                            try await connection.listen(on: channel) { notifications in
                                if self.state.withLock({ $0.lost }) {
                                    logger.info("listening for other nodes' changes again", metadata: ["channel": "\(channel)"])
                                }
                                // Changes made while nobody listened were missed: count one now.
                                self.setListening(true)
                                for try await _ in notifications { self.changed() }
                            }
                            return false
                        }
                        group.addTask {
                            await self.untilUnwanted()
                            return !Task.isCancelled
                        }
                        defer { group.cancelAll() }
                        return try await group.next() ?? false
                    }
                } catch {
                    failure = error
                }
                try? await connection.close()
            } catch {
                failure = error
            }
            guard !Task.isCancelled else { return }
            if unwanted {
                // Nobody waits: the feed no longer hears changes, which engines that wait again
                // learn from ``isListening`` (they poll until it listens again).
                state.withLock { $0.listening = false }
                continue
            }
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

    /// Returns once someone wants to hear changes (now or later), or the task is cancelled.
    private func asked() async {
        while !Task.isCancelled {
            if let until = state.withLock({ $0.wantedUntil }), until > .now { return }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if Task.isCancelled || state.wantedUntil.map({ $0 > .now }) == true { return true }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }

    /// Returns once the time someone asked to hear changes for has passed, or the task is cancelled.
    private func untilUnwanted() async {
        while !Task.isCancelled, let until = state.withLock({ $0.wantedUntil }), until > .now {
            try? await Task.sleep(until: until, clock: .continuous)
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
