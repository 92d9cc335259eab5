import Foundation
import Tracing

extension JobQueue {
    /// How a ``JobQueue`` stores, claims and runs jobs; every property has a default.
    public struct Configuration: Sendable {
        /// How the SQLite file is opened and written.
        public var storage: StorageOptions
        /// This process's name in `lease_owner` and the history. Default: host, process id and a random suffix.
        public var workerID: String
        /// The most jobs this process runs at once, over all queues. Default 16.
        public var maxConcurrentJobs: Int
        /// The queues this process works on; nil (the default) means every queue in the file.
        public var queues: Set<String>?
        /// How long a claimed job stays leased without a heartbeat; after that another process may
        /// take it back. Default 30 s.
        public var leaseDuration: Duration
        /// How often running jobs' leases are renewed. Default 10 s (must be below `leaseDuration`).
        public var heartbeatInterval: Duration
        /// How soon an idle engine notices work enqueued or cancelled by another process where the
        /// store cannot tell it (a SQLite file that cannot be watched). Default 250 ms. Where the
        /// store tells of other processes' commits (a watched SQLite file, PostgreSQL's
        /// notifications), the engine and waiting handles look at most once a second instead, and
        /// are woken at once by the store.
        public var pollInterval: Duration
        /// How long shutdown waits for running jobs before stopping them and giving them back. Default 30 s.
        public var gracefulShutdownTimeout: Duration
        /// How long the engine keeps trying when every write to the file fails (a full disk, I/O
        /// errors, a lock another process holds) before ``JobQueue/run()`` stops with that error.
        /// Default 30 s.
        public var storageFailureTimeout: Duration
        /// How long finished jobs and their history are kept.
        public var retention: Retention
        /// Where the engine reads the time; the wall clock unless a test needs another.
        public var timeSource: any TimeSource
        /// Takes back at start-up, without waiting for their leases to expire, the jobs of workers
        /// that ran on this host (same host name, default worker ID) and whose process is gone, for
        /// example after `kill -9`. Default false: turn it on only when every process sharing the
        /// file on this host name also shares the process ID space (not across containers that
        /// share a host name but not their pids).
        public var recoverDeadLocalWorkers: Bool
        /// Where attempt spans go (swift-distributed-tracing): nil (the default) means the tracer
        /// the application bootstrapped with `InstrumentationSystem.bootstrap` before ``JobQueue/run()``
        /// started, a no-op if none.
        /// Each attempt is a span whose parent is the context that enqueued the job, stored with it.
        public var tracer: (any Tracer)? = nil
        /// The directories that paths in jobs' inputs and outputs are stored relative to, so that
        /// they still name the right files after the app's container (or the tree holding the
        /// queue file) moved: see ``FileBases`` and ``StoresFilePaths``. By default the queue
        /// file's directory and the platform's application support, caches and temporary ones.
        public var fileBases = FileBases()
        /// The network as this process sees it, for job types with a ``Job/networkRequirement``:
        /// their jobs are claimed only while it meets the requirement. nil (the default): no gate,
        /// every requirement is taken as met. `NetworkConditions.systemPath()` follows the
        /// system's path monitor on Apple platforms.
        public var network: NetworkConditions?
        /// What each named queue needs of the network, whatever its jobs' types say: while
        /// ``network`` does not meet it, this process claims nothing from the queue (its jobs wait
        /// in `pending`, their attempts unspent). A setting of this process, as ``queues`` is.
        /// Default: none.
        public var queueNetworkRequirements: [String: NetworkRequirement] = [:]
        /// How many attempts in a row a job may lose to its worker stopping (a lease that expired, a
        /// process gone: a crash, `kill -9`) before it fails as a poison job, whatever retries it has
        /// left, so that a job that takes its worker down is not run again forever. An attempt that
        /// saved a new checkpoint or committed a durable step made progress and starts the count again;
        /// attempts given back at a pause or shutdown do not count. Applied by whichever process
        /// takes the job back. Default 3; nil: never. Find such jobs with `durableq list --poisoned`.
        public var lostAttemptLimit: Int? = 3

        /// Creates a configuration; see each property for its default.
        public init(
            storage: StorageOptions = StorageOptions(), workerID: String? = nil, maxConcurrentJobs: Int = 16,
            queues: Set<String>? = nil, leaseDuration: Duration = .seconds(30), heartbeatInterval: Duration = .seconds(10),
            pollInterval: Duration = .milliseconds(250), gracefulShutdownTimeout: Duration = .seconds(30),
            storageFailureTimeout: Duration = .seconds(30), retention: Retention = Retention(),
            timeSource: any TimeSource = SystemTimeSource(), recoverDeadLocalWorkers: Bool = false
        ) {
            self.storage = storage
            self.workerID = workerID ?? Self.defaultWorkerID()
            self.maxConcurrentJobs = maxConcurrentJobs
            self.queues = queues
            self.leaseDuration = leaseDuration
            self.heartbeatInterval = heartbeatInterval
            self.pollInterval = pollInterval
            self.gracefulShutdownTimeout = gracefulShutdownTimeout
            self.storageFailureTimeout = storageFailureTimeout
            self.retention = retention
            self.timeSource = timeSource
            self.recoverDeadLocalWorkers = recoverDeadLocalWorkers
        }

        /// Throws `invalidArgument` naming the first setting out of range.
        package func validate() throws {
            if workerID.isEmpty { throw DurableQueueError.invalidArgument("workerID", "must not be empty") }
            try fileBases.validate()
            if maxConcurrentJobs < 1 {
                throw DurableQueueError.invalidArgument("maxConcurrentJobs", "\(maxConcurrentJobs) is below 1")
            }
            if leaseDuration < .milliseconds(10) {
                throw DurableQueueError.invalidArgument("leaseDuration", "\(leaseDuration) is below 10 ms")
            }
            if heartbeatInterval <= .zero || heartbeatInterval >= leaseDuration {
                throw DurableQueueError.invalidArgument(
                    "heartbeatInterval", "\(heartbeatInterval) must be positive and below leaseDuration (\(leaseDuration))")
            }
            if pollInterval <= .zero { throw DurableQueueError.invalidArgument("pollInterval", "\(pollInterval) is not positive") }
            if storageFailureTimeout <= .zero {
                throw DurableQueueError.invalidArgument("storageFailureTimeout", "\(storageFailureTimeout) is not positive")
            }
            if let lostAttemptLimit, lostAttemptLimit < 1 {
                throw DurableQueueError.invalidArgument("lostAttemptLimit", "\(lostAttemptLimit) is below 1 (nil: no limit)")
            }
            if gracefulShutdownTimeout < .zero {
                throw DurableQueueError.invalidArgument("gracefulShutdownTimeout", "\(gracefulShutdownTimeout) is negative")
            }
        }

        private static func defaultWorkerID() -> String {
            let info = ProcessInfo.processInfo
            return "\(LocalHost.name)-\(info.processIdentifier)-\(UUID().uuidString.prefix(8).lowercased())"
        }
    }

    /// How long finished jobs (and their events and tags) stay in the file before they are pruned;
    /// the `deleted_jobs` line of a job deleted by hand stays as long, counted from its deletion.
    ///
    /// Pruning runs while the engine runs, in small batches that never hold the file for long.
    public struct Retention: Sendable, Hashable {
        /// How long `succeeded` jobs are kept; nil keeps them forever. Default 7 days.
        public var succeeded: Duration?
        /// How long `failed` jobs are kept; nil keeps them forever. Default 30 days.
        public var failed: Duration?
        /// How long `cancelled` jobs are kept; nil keeps them forever. Default 30 days.
        public var cancelled: Duration?
        /// How often the engine prunes. Default every minute.
        public var interval: Duration

        /// Creates a retention; see each property for its default.
        public init(
            succeeded: Duration? = .seconds(7 * 86_400), failed: Duration? = .seconds(30 * 86_400),
            cancelled: Duration? = .seconds(30 * 86_400), interval: Duration = .seconds(60)
        ) {
            self.succeeded = succeeded
            self.failed = failed
            self.cancelled = cancelled
            self.interval = interval
        }

        /// Keeps every finished job forever.
        public static var forever: Retention { Retention(succeeded: nil, failed: nil, cancelled: nil) }

        /// Each finished state with its age limit.
        var limits: [(JobState, Duration)] {
            [(.succeeded, succeeded), (.failed, failed), (.cancelled, cancelled)].compactMap { state, age in
                age.map { (state, $0) }
            }
        }
    }
}
