import Dispatch
import DurableQueueCore
import Synchronization

/// Copies the write-ahead log back into the database file on a connection and thread of its own,
/// so that commits go on while it works.
///
/// In WAL mode a passive checkpoint and a writer run at once: the checkpoint copies the frames
/// committed before it began while the writer appends new ones. A checkpoint reads and writes
/// megabytes and syncs the file; on the writer's connection every commit behind it would wait
/// (for milliseconds: the engine's p99 latency was the checkpoint's duration).
///
/// The log only starts over at a write that finds every frame copied, so writers that never pause
/// could outrun background checkpoints. ``checkpointNow()`` is for that case: called on the
/// store's queue, it holds up this process's writes until the log is copied to its end.
/// Related SQLite documentation: <https://www.sqlite.org/wal.html#checkpointing>
final class Checkpointer: Sendable {
    private let path: String
    private let options: StorageOptions
    private let queue = DispatchQueue(label: "DurableQueue.checkpoint")
    /// Whether a background checkpoint waits or runs: requests meanwhile add nothing.
    private let requested = Atomic<Bool>(false)
    /// The checkpoint connection, opened at the first checkpoint. The lock is held for a whole
    /// checkpoint: only the checkpoint queue and the store's queue wait for it, never a cooperative
    /// thread.
    private let connection = Mutex<SQLiteConnection?>(nil)

    /// Checkpoints the file at `path`, opened with `options`.
    init(path: String, options: StorageOptions) {
        self.path = path
        self.options = options
    }

    /// Starts a checkpoint in the background unless one is already waiting or running.
    func request() {
        guard requested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        queue.async {
            self.checkpointNow()
            self.requested.store(false, ordering: .releasing)
        }
    }

    /// Closes the checkpoint connection, after any checkpoint in progress; the next checkpoint opens it again.
    func close() {
        connection.withLock { $0 = nil }
    }

    /// Checkpoints on the calling thread, after any checkpoint in progress.
    ///
    /// A checkpoint that fails (the file cannot be opened, another process is checkpointing) is
    /// dropped: a later commit asks again.
    func checkpointNow() {
        connection.withLock { connection in
            if connection == nil { connection = try? SQLiteConnection(path: path, options: options) }
            try? connection?.checkpoint()
        }
    }
}
