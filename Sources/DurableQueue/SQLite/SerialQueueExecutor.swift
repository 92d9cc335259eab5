import Dispatch

/// A serial executor that runs every job on one `DispatchQueue`.
///
/// An actor using it runs on that queue's thread rather than on the cooperative pool, so SQLite calls
/// that block (busy waits, fsync) stall only this queue and never one of the pool's few threads.
final class SerialQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// Creates an executor over a new serial queue named `label`.
    init(label: String) {
        self.queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
