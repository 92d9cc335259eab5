import Foundation

/// Runs `body`, which blocks (reading a child's output, waiting for it to exit), on a thread of its
/// own and returns what it returns.
///
/// Not on `DispatchQueue.global()`: on Linux that is the pool the Swift concurrency runtime runs
/// every task on (one thread per core), and its monitor replaces blocked threads only slowly. With
/// a few crash and CLI tests blocked there, every other test of the run stalled for about ten
/// seconds (tests of 0.5 s took 10 s, and a busy test's "jobs flow" wait timed out).
package func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
