import DurableQueueCore
import Synchronization

/// Runs `body`, an async sequence of the core over the SQLite store's row operations, to its end
/// on the calling thread, inside the store's transaction under way, and returns its result.
///
/// The core writes each sequence once, as async code, because PostgreSQL's row operations wait for
/// the server. SQLite's do not: they run synchronously on the thread that holds the store (see
/// ``LockingSerialExecutor``), so a sequence over them never suspends, and this runs it as a task
/// whose executor runs every job it is given at once, on the thread that gives it. The task has
/// ended when `Task.init` returns. One that suspended all the same (a row operation that awaited
/// something real) would leave the store's transaction open behind it: that is a programming
/// error, and it stops the process.
func runWithoutSuspending<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    _ = Task(executorPreference: CallingThreadExecutor.shared) {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
    }
    guard let outcome = result.withLock({ $0 }) else {
        preconditionFailure("a sequence suspended inside a SQLite transaction: one of its row operations awaited something")
    }
    return try outcome.get()
}

/// A task executor that runs each job it is given at once, on the thread that enqueues it.
private final class CallingThreadExecutor: TaskExecutor {
    static let shared = CallingThreadExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
