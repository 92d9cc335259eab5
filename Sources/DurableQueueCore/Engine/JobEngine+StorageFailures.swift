import Foundation
import Logging

extension JobEngine {
    /// Runs `operation`; a storage error is handled by ``storageFailed(_:while:)`` and gives nil, after
    /// a pause of one poll interval, so the engine tries again later (unless it has given up). While
    /// protected data is unavailable the pause grows with the wait, up to 10 s: a locked device may
    /// stay locked for hours.
    ///
    /// - Parameter isWrite: Whether `operation` writes: only a write that succeeds shows that the
    ///   file works again (reads go on working on a full disk).
    func retryingTransientErrors<T>(_ what: String, isWrite: Bool = false, _ operation: () async throws -> T) async -> T? {
        do {
            let value = try await operation()
            if isWrite { storageSucceeded() } else { state.readSucceeded() }
            return value
        } catch {
            guard storageFailed(error, while: what) else { return nil }
            var pause = configuration.pollInterval.milliseconds
            if (error as? DurableQueueError)?.code == .protectedDataUnavailable, let since = state.failingSince {
                pause = min(max(pause, (now - since) / 2), Self.longestUnavailablePause)
            }
            try? await configuration.timeSource.sleep(until: Date(millisecondsSince1970: now + pause))
            return nil
        }
    }

    /// The longest pause between two tries while protected data is unavailable (ms).
    static let longestUnavailablePause: Int64 = 10_000

    /// Notes that a write to the store succeeded: the store works (again).
    func storageSucceeded() { state.storageSucceeded() }

    /// Handles an error of a store call the engine made while trying to `what` (in words).
    ///
    /// A lock held elsewhere past the busy timeout or a storage failure (disk full, I/O error) is
    /// logged, and the caller may try again, until the engine's store calls have failed for longer
    /// than ``Configuration/storageFailureTimeout``: then the engine stops with that error, as it does
    /// at once for errors no retry can fix (the store is damaged, read-only, or not a job store). The
    /// store is left as its last commit made it; jobs left running are recovered once it works again.
    ///
    /// Protected data that is unavailable (a locked device) is waited for however long it takes:
    /// nothing is wrong with the file, and no job fails or stops for it.
    ///
    /// - Returns: Whether to try again; false once the engine is stopping for this error or another.
    func storageFailed(_ error: any Error, while what: String) -> Bool {
        let error = DurableQueueError(storeError: error, operation: what, location: store.location)
        guard state.failure == nil else { return false }
        let now = now
        let failingSince = state.storageFailed(at: now, unavailable: error.code == .protectedDataUnavailable)
        let retryable = error.code == .databaseLocked || error.code == .storage
        let limit = configuration.storageFailureTimeout.milliseconds
        if error.code == .protectedDataUnavailable {
            if failingSince == now { logger.info("waiting for the file to become available; could not \(what): \(error)") }
            return true
        }
        if retryable && now - failingSince < limit {
            let level: Logger.Level = failingSince == now ? .info : .debug
            logger.log(level: level, "could not \(what); will try again for up to \(configuration.storageFailureTimeout): \(error)")
            return true
        }
        let stopping = retryable
            ? DurableQueueError(
                error.code, "stopped after \((now - failingSince) / 1_000) s of failing writes: \(error.message)",
                path: error.path, underlying: error.underlying)
            : error
        logger.info("the engine stops: \(stopping)")
        state.fail(stopping)
        wake.signal()
        return false
    }
}
