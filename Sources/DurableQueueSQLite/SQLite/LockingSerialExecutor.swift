import Dispatch
import DurableQueueCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial executor whose jobs run on one `DispatchQueue`, each holding a lock that a caller can
/// also take to run the actor's code at once on its own thread.
///
/// An actor using it runs on that queue's thread rather than on the cooperative pool, so SQLite calls
/// that may block (busy waits, fsync) stall only this queue and never one of the pool's few threads.
/// A short call that cannot block can skip the two thread switches of an actor hop instead: when the
/// lock is free, ``runInline(_:)`` runs it on the caller's thread, and ``checkIsolated()`` tells the
/// runtime that the thread holding the lock is isolated to the actor.
final class LockingSerialExecutor: SerialExecutor {
    private let queue: DispatchQueue
    private let lock = OwnedLock()
    /// Jobs enqueued and not yet run: while there are any, callers do not run inline, so that the
    /// queue is never starved by callers that keep taking the lock.
    private let queuedJobs = Atomic<Int>(0)
    /// Whether ``afterEachRun`` is to run after each job (an atomic flag, so that it costs a load
    /// when off).
    private let runsAfterEach = Atomic<Bool>(false)
    /// What runs after each job, still holding the lock (isolated to the actor); set once, before use.
    nonisolated(unsafe) private var afterEachRun: (() -> Void)?

    /// Creates an executor over a new serial queue named `label`.
    init(label: String) {
        self.queue = DispatchQueue(label: label)
    }

    /// Sets what runs after each job while ``runAfterEachJob(_:)`` is on; once, before any job.
    func setAfterEachJob(_ action: @escaping () -> Void) {
        afterEachRun = action
    }

    /// Turns the action after each job on or off.
    func runAfterEachJob(_ on: Bool) {
        runsAfterEach.store(on, ordering: .releasing)
    }

    /// Runs the action after a job, if it is on.
    private func afterJob() {
        if runsAfterEach.load(ordering: .acquiring) { afterEachRun?() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queuedJobs.add(1, ordering: .relaxed)
        queue.async {
            self.lock.lock()
            self.queuedJobs.subtract(1, ordering: .relaxed)
            defer { self.lock.unlock() }
            job.runSynchronously(on: self.asUnownedSerialExecutor())
            self.afterJob()
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Succeeds on the thread that holds the lock: the queue's thread running a job, or a caller inside
    /// ``runInline(_:)``.
    func checkIsolated() {
        precondition(lock.isHeldByCurrentThread, "not isolated to the job store")
    }

    /// Runs `body` on the calling thread holding the lock, if no one holds it and no job waits on
    /// the queue; returns nil at once (without running `body`) otherwise.
    func runInline<T>(_ body: () throws -> T) rethrows -> T? {
        guard queuedJobs.load(ordering: .relaxed) == 0, lock.tryLock() else { return nil }
        defer {
            afterJob()
            lock.unlock()
        }
        return try body()
    }
}

/// A mutual-exclusion lock that knows which thread holds it.
private final class OwnedLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The holder's thread id, 0 when free; read by other threads only to compare with their own.
    private let owner = Atomic<UInt>(0)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() {
        pthread_mutex_lock(mutex)
        owner.store(Self.currentThread, ordering: .relaxed)
    }

    func tryLock() -> Bool {
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        owner.store(Self.currentThread, ordering: .relaxed)
        return true
    }

    func unlock() {
        owner.store(0, ordering: .relaxed)
        pthread_mutex_unlock(mutex)
    }

    /// Whether the calling thread holds the lock. Only the holder stores its own id, so a thread
    /// that reads its id there holds the lock.
    var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == Self.currentThread
    }

    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
