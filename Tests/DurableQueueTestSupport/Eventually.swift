import Foundation
import Synchronization
import Testing

/// Waits (in real time, at most `seconds`) until `condition` holds; records an issue if it never does.
package func eventually(
    _ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    if try await holds(within: seconds, condition) { return }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// Whether `condition` came to hold within `seconds` (looked at every 5 ms), for a wait whose
/// bound decides nothing by itself.
package func holds(within seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return false
}

/// `task`'s value, waited for at most `seconds` before recording an issue with what `diagnose`
/// finds (where a run that hangs is stuck); then waits on, until the test's time limit cancels
/// the test, and with it `task`.
package func value<T: Sendable>(
    of task: Task<T, any Error>, within seconds: Double, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    diagnose: () async -> String
) async throws -> T {
    let ended = Mutex(false)
    let watcher = Task {
        _ = await task.result
        ended.withLock { $0 = true }
    }
    defer { watcher.cancel() }
    let deadline = Date().addingTimeInterval(seconds)
    while !ended.withLock({ $0 }) && Date() < deadline { await sleepIgnoringCancellation(milliseconds: 20) }
    if !ended.withLock({ $0 }) {
        Issue.record("\(what) did not happen within \(seconds) s: \(await diagnose())", sourceLocation: sourceLocation)
    }
    return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
}
