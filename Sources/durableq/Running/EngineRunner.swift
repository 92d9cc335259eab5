import DurableQueue
import Logging
import ServiceLifecycle
import UnixSignals

/// Runs a ``JobQueue`` engine in this process until a condition holds or Ctrl-C / SIGTERM arrives.
enum EngineRunner {
    /// How a run ended.
    enum Ending {
        /// `isDone` returned true; the engine then shut down gracefully.
        case done
        /// A signal (SIGINT, SIGTERM) shut the engine down; running jobs were given back, resumable.
        case interrupted
    }

    /// Runs `queue` and, every `interval`, calls `tick` then `isDone`; returns once the engine has stopped.
    ///
    /// Running jobs are given back at once on a signal (the queue's graceful shutdown timeout
    /// applies), recorded in their history, so that the next run resumes them.
    static func run(
        _ queue: JobQueue, logger: Logger, interval: Duration, tick: @escaping @Sendable () async -> Void,
        isDone: @escaping @Sendable () async throws -> Bool
    ) async throws -> Ending {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [queue], gracefulShutdownSignals: [.sigint, .sigterm], cancellationSignals: [], logger: logger))
        // Each child says whether it saw the work done: the monitor does, the engine does not.
        let done = try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try await group.run()
                return false
            }
            tasks.addTask {
                while !Task.isCancelled {
                    await tick()
                    if try await isDone() {
                        await group.triggerGracefulShutdown()
                        return true
                    }
                    try? await Task.sleep(for: interval)
                }
                return false
            }
            do {
                // The engine stops either way: after the monitor saw the work done, or on a signal.
                // The two children may end in either order, so the answer is whether either saw it.
                var done = try await tasks.next() ?? false
                if !done { tasks.cancelAll() }  // a signal: stop the monitor (unless it already saw the end)
                while let next = try await tasks.next() { done = done || next }
                return done
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
        await tick()
        return done ? .done : .interrupted
    }
}
