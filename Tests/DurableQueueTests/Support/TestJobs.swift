import DurableQueueTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Returns its input.
struct Echo: Job {
    static let name = "echo"
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

/// An error the tests throw from handlers.
struct TestFailure: Error, CustomStringConvertible {
    var description: String { "test failure" }
}

/// Fails its first `failures` attempts (the input), then returns the attempt number.
struct Flaky: Job {
    static let name = "flaky"
    let retries: Bool
    func run(_ failures: Int, context: JobContext) async throws -> Int {
        if context.attempt <= failures { throw TestFailure() }
        return context.attempt
    }
    func shouldRetry(after error: any Error) -> Bool { retries }
}

/// Runs until its task is cancelled, counting how many attempts run at once.
struct Blocking: Job {
    static let name = "blocking"
    let tracker: RunTracker
    func run(_ input: String, context: JobContext) async throws -> String {
        tracker.started(input)
        defer { tracker.ended(input) }
        while true { try await Task.sleep(for: .milliseconds(2)) }
    }
}

/// Records the inputs of started attempts and the most that ran at once.
final class RunTracker: Sendable {
    private let state = Mutex((started: [String](), running: 0, peak: 0))
    func started(_ input: String) {
        state.withLock { state in
            state.started.append(input)
            state.running += 1
            state.peak = max(state.peak, state.running)
        }
    }
    func ended(_ input: String) { state.withLock { $0.running -= 1 } }
    var startedInputs: [String] { state.withLock { $0.started } }
    var running: Int { state.withLock { $0.running } }
    var peak: Int { state.withLock { $0.peak } }
}

/// Waits at its gate ignoring cancellation, as a careless handler does, then returns "done".
/// Attempts after the first return at once.
struct Stubborn: Job {
    static let name = "stubborn"
    let gate: Gate
    let tracker: RunTracker
    func run(_ input: String, context: JobContext) async throws -> String {
        tracker.started("\(input) attempt \(context.attempt)")
        defer { tracker.ended(input) }
        while context.attempt == 1 && !gate.isOpen.withLock({ $0 }) { await sleepIgnoringCancellation(milliseconds: 2) }
        return "done"
    }
}
