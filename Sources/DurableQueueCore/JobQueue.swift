import Foundation
import Tracing
import Logging
import Synchronization

/// A durable job queue on a SQLite file or a PostgreSQL database: register job types, enqueue,
/// observe, cancel, and run.
///
/// Everything is in the store, so work survives restarts and `kill -9`: start the process again and
/// call ``run()`` to continue whatever was pending or interrupted. Several processes may use the same
/// file or database at once; each job runs in one of them at a time.
///
/// Open one on a file with `JobQueue(path:)` (the SQLite store, module `DurableQueueSQLite`, which
/// `import DurableQueue` brings) or on a database with `JobQueue(postgres:)` (`DurableQueuePostgres`).
///
/// For example:
/// ```swift
/// let queue = try JobQueue(path: "jobs.sqlite")
/// queue.register(SendEmail())
/// let handle = try await queue.enqueue(SendEmail.self, .init(to: "ada@example.com", subject: "Hi"))
/// // elsewhere: try await queue.run() (or add `queue` to a ServiceGroup)
/// print(try await handle.result())
/// ```
///
/// What every user needs is here: open, register, enqueue, handle, run or drain, and this
/// process's pause. What manages the store's contents lives on views named for it: ``jobs``
/// (cancel, retry, delete, signal), ``queues`` (settings, pause), ``schedules`` and ``handOffs``.
///
/// ## Topics
/// ### Setting up
/// - ``register(_:)``
/// - ``register(carrier:)``
/// - ``location``
/// - ``configuration-swift.property``
/// ### Enqueueing
/// - ``enqueue(_:_:options:)``
/// - ``enqueue(_:batch:options:)``
/// - ``handle(_:id:)``
/// - ``unfinishedJobCount()``
/// ### Running
/// - ``run()``
/// - ``drain(until:gracePeriod:)``
/// - ``pauseInThisProcess(gracePeriod:)``
/// - ``resumeInThisProcess()``
/// ### Managing what the store holds
/// - ``jobs``
/// - ``queues``
/// - ``schedules``
/// - ``handOffs``
/// - ``Jobs``
/// - ``Queues``
/// - ``Schedules``
/// - ``HandOffs``
public final class JobQueue: Sendable {
    /// Where the jobs live: the SQLite file's path, or the PostgreSQL database's address.
    public var location: String { store.location }
    /// The settings this queue was opened with.
    public let configuration: Configuration
    /// Where the jobs live. Only the core writes through it; see ``reader``.
    let store: any JobStore
    /// The store, to read: what the `durableq` commands, the dashboard and the HTTP jobs use to look
    /// at jobs, queues and groups. Every change goes through the queue's own methods, so that it has
    /// its history row and engines hear of it.
    package var reader: any JobStoreReader { store }
    let registry = JobRegistry()
    /// The carriers of handed-off attempts registered in this process (see ``register(carrier:)``).
    let carriers = HandOffCarriers()
    /// Wakes handles waiting on a job: something changed in this process.
    let jobChanges = ChangeSignal()
    /// Commits single enqueues, many per transaction when many callers enqueue at once.
    let enqueuer: EnqueueCommitter
    let logger: Logger
    private let engineBox = Mutex<JobEngine?>(nil)
    /// Whether the store tells of other processes' changes (see ``JobStore/observeChanges(_:)``).
    private let notifiedOfChanges = Atomic<Bool>(false)
    /// Where paths in inputs and outputs are stored relative to (see ``FileBases``).
    let files: FileLocations
    /// The latest pause or resume in this process: each waits for the one before it.
    let pauseTransition = Mutex<Task<Void, Never>?>(nil)

    /// How long an idle engine or a waiting handle sleeps before it looks for other processes'
    /// changes: ``Configuration/pollInterval``, or at least a second while the store tells of them
    /// anyway (on a phone, every wakeup costs battery).
    var idlePollInterval: Duration {
        notifiedOfChanges.load(ordering: .relaxed) && store.hearsChanges
            ? max(configuration.pollInterval, .seconds(1)) : configuration.pollInterval
    }

    /// ``idlePollInterval``, for a wait for other processes' changes that begins now (an idle
    /// engine's, a handle's): the store keeps hearing them for three such waits, or at least 30 s,
    /// so that waits one after another keep one way of hearing open (see
    /// ``JobStore/keepHearingChanges(for:)``).
    func idlePollExpectingChanges() -> Duration {
        let interval = idlePollInterval
        store.keepHearingChanges(for: max(.seconds(30), interval * 3))
        return interval
    }

    /// A queue on `store`, which any database may provide (see ``JobStore``).
    ///
    /// - Throws: `invalidArgument` for a bad configuration (``Configuration/storage`` is the SQLite
    ///   file's and does not apply).
    package init(
        store: any JobStore, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "DurableQueue", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.store = store
        // The store stamps its rows with this clock, read once each transaction holds its locks.
        store.stampTimes(with: configuration.timeSource)
        self.enqueuer = EnqueueCommitter(store: store, time: configuration.timeSource)
        self.files = FileLocations(configuration.fileBases, queueDirectory: store.directory)
        self.logger = logger
        let notified = store.observeChanges { [weak self] in
            self?.workArrived()
            self?.jobChanges.signal()
        }
        notifiedOfChanges.store(notified, ordering: .relaxed)
    }

    /// The engine that runs this queue's jobs (see ``run()``), made on first use.
    var engine: JobEngine {
        engineBox.withLock { engine in
            if let engine { return engine }
            let made = JobEngine(queue: self, store: store, registry: registry, jobChanges: jobChanges)
            engine = made
            return made
        }
    }

    /// Makes jobs of type `J` runnable in this process, using `job` to run them.
    ///
    /// Register every type before calling ``run()``. Jobs of types no process registered wait in
    /// `pending`; they are never dropped. Registering one name twice is a programming error.
    public func register<J: Job>(_ job: J) {
        registry.register(job)
        workArrived()
    }

    /// Enqueues one job of type `type`. Returns after the job is committed to the file.
    ///
    /// Calls made at the same time (from many tasks) share transactions, so their commits cost
    /// less each; a transaction that fails fails every call in it with the same error.
    /// The type need not be registered in this process: another process may run it.
    ///
    /// - Parameters:
    ///   - type: The job type.
    ///   - input: Its input, stored as JSON.
    ///   - options: Queue, priority, schedule, retries, timeout, unique key and tags.
    /// - Returns: A handle on the job: the new one, or with a unique key and `.keep`, the existing one.
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    public func enqueue<J: Job>(_ type: J.Type, _ input: J.Input, options: EnqueueOptions = EnqueueOptions()) async throws
        -> JobHandle<J>
    {
        try await enqueue(type, input, options: options, inheriting: nil)
    }

    /// ``enqueue(_:_:options:)``, with `inherited` as the priority unless `options` sets one.
    func enqueue<J: Job>(_ type: J.Type, _ input: J.Input, options: EnqueueOptions, inheriting inherited: Priority?) async throws
        -> JobHandle<J>
    {
        try await enqueueOrFind(type, input, options: options, inheriting: inherited).handle
    }

    /// ``enqueue(_:_:options:)``, also saying whether the job is new: false when an unfinished job
    /// held the unique key and `.keep` returned it.
    package func enqueueOrFind<J: Job>(
        _ type: J.Type, _ input: J.Input, options: EnqueueOptions, inheriting inherited: Priority? = nil
    ) async throws -> (handle: JobHandle<J>, isNew: Bool) {
        let job = try options.newJob(
            J.self, input: try files.storedJSON(input), now: now, inheriting: inherited, traceContext: callersTraceContext)
        try job.validate()  // before it joins other callers' jobs in a transaction
        let outcome = try await enqueuer.enqueue(job)
        enqueued()
        if case .existing = outcome { return (JobHandle(id: outcome.id, queue: self), false) }
        return (JobHandle(id: outcome.id, queue: self), true)
    }

    /// Enqueues one job per input, all in one transaction: every job is committed, or none.
    ///
    /// - Returns: One handle per input, in order.
    public func enqueue<J: Job>(_ type: J.Type, batch inputs: [J.Input], options: EnqueueOptions = EnqueueOptions())
        async throws -> [JobHandle<J>]
    {
        let now = now
        let jobs = try options.newJobs(
            kind: J.name, version: J.version, inputs: try inputs.map(files.storedJSON), now: now, traceContext: callersTraceContext)
        let outcomes = try await store.enqueue(jobs, now: now)
        enqueued()
        return outcomes.map { JobHandle(id: $0.id, queue: self) }
    }

    /// Enqueues one job per input, each with its own options (a partition key per customer, say),
    /// all in one transaction: every job is committed, or none.
    ///
    /// For example, a sync for each customer, one at a time per customer:
    /// ```swift
    /// try await queue.enqueue(Sync.self, batch: customers.map { ($0.id, EnqueueOptions(partitionKey: $0.id)) })
    /// ```
    /// - Returns: One handle per input, in order.
    public func enqueue<J: Job>(_ type: J.Type, batch jobs: [(input: J.Input, options: EnqueueOptions)]) async throws -> [JobHandle<J>] {
        let now = now
        let newJobs = try jobs.flatMap { input, options in
            try options.newJobs(kind: J.name, version: J.version, inputs: [try files.storedJSON(input)], now: now, traceContext: callersTraceContext)
        }
        let outcomes = try await store.enqueue(newJobs, now: now)
        enqueued()
        return outcomes.map { JobHandle(id: $0.id, queue: self) }
    }

    /// A handle on an existing job (enqueued earlier, perhaps by another process).
    public func handle<J: Job>(_ type: J.Type, id: JobID) -> JobHandle<J> {
        JobHandle(id: id, queue: self)
    }

    /// How many jobs are not finished yet and will finish without anyone's help (scheduled,
    /// pending, blocked, running, handed off or waiting), over every queue: what a program that
    /// waits for its work to be done asks. A parked job (``JobState/parked``) waits for a person's
    /// retry or cancel and is not counted.
    public func unfinishedJobCount() async throws -> Int {
        try await store.count(JobFilter(states: JobFilter.unfinished))
    }

    /// The current time by the configured time source, in milliseconds since 1970.
    var now: Int64 { configuration.timeSource.nowMilliseconds }

    /// The tracer attempts report to: the configured one, or the bootstrapped one.
    var tracer: any Tracer { configuration.tracer ?? InstrumentationSystem.tracer }

    /// The calling task's trace context, to store with the jobs it enqueues.
    var callersTraceContext: String? { TraceContext.capture(with: tracer) }

    func enqueued() {
        workArrived()
        jobChanges.signal()
    }

    /// Wakes the engine (if it runs): there may be work to claim.
    func workArrived() {
        engineBox.withLock { $0 }?.wake.signal()
    }
}
