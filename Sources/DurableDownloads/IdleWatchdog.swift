import Foundation
import Synchronization

/// The body of a transfer went silent for longer than the idle timeout.
public struct TransferStalledError: Error, CustomStringConvertible, Sendable {
    /// How long it stayed silent.
    public let timeout: Duration

    public var description: String { "no data for \(timeout); the transfer stalled" }
}

/// Runs an operation that reports progress, failing it with ``TransferStalledError`` (and cancelling
/// it) when it reports nothing for `timeout`.
final class IdleWatchdog: Sendable {
    private let lastHeard = Mutex(ContinuousClock.now)

    /// Notes that data arrived.
    func heard() { lastHeard.withLock { $0 = .now } }

    static func run<T: Sendable>(
        timeout: Duration, _ operation: @escaping @Sendable (IdleWatchdog) async throws -> T
    ) async throws -> T {
        let watchdog = IdleWatchdog()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation(watchdog) }
            group.addTask {
                while true {
                    let since = ContinuousClock.now - watchdog.lastHeard.withLock { $0 }
                    if since >= timeout { throw TransferStalledError(timeout: timeout) }
                    do { try await Task.sleep(for: timeout - since) } catch { return nil }  // cancelled: done
                }
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }
}
