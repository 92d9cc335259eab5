import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Tracing

/// Runs the jobs of one ``JobQueue``: claims due jobs within every queue's limits, runs each handler
/// as a task, records how each attempt ended before anyone hears of it, renews leases, takes back
/// the jobs of workers that died, and prunes finished jobs.
///
/// A swift-service-lifecycle `Service` with an explicit lifecycle (``EngineMachine/Phase``). It
/// speaks to its store only through ``JobStore`` and holds nothing the store does not also have:
/// losing the process loses no job. See the concurrency article (`DurableQueueCore.docc/Concurrency.md`) for who owns what.
final class JobEngine: Service, Sendable {
    /// The façade the engine runs for: handlers get it in their context, for follow-up jobs. It
    /// owns the engine, so the engine never outlives it.
    unowned let queue: JobQueue
    let store: any JobStore
    let registry: JobRegistry
    let configuration: JobQueue.Configuration
    let logger: Logger
    /// Whether the logger drops everything (the default): then no attempt adds its metadata to it.
    let logsNothing: Bool
    let metrics = JobMetrics()
    let state = EngineState()
    /// Wakes the dispatcher: work was enqueued, an attempt ended, shutdown began.
    let wake = ChangeSignal()
    /// Wakes maintenance (heartbeats, recovery, pruning) when the engine stops.
    let maintenanceWake = ChangeSignal()
    /// Wakes the schedule loop: a schedule was saved here, or another process changed the store.
    let scheduleWake = ChangeSignal()
    /// Tells a drain lent the time of ``JobQueue/run()`` that a claim found nothing to run.
    let dispatcherIdle = ChangeSignal()
    /// Tells a pause that one of the engine's loops parked (see ``parkWhilePaused(waitingOn:after:)``).
    let loopParked = ChangeSignal()
    /// Wakes handles waiting on a job: something changed in this process (the façade's).
    let jobChanges: ChangeSignal
    /// Commits the ends of attempts, many per transaction when many end at once.
    let recorder: AttemptRecorder
    /// Commits the steps of attempts, many per transaction when many record at once.
    let steps: StepRecorder
    /// Where attempts' handlers start.
    let handlerStarts: HandlerStarts
    /// The tracer of the current run (see ``recordingTracer(_:)``).
    private let runTracer = Mutex<(any Tracer)?>(nil)
    /// Wakes the dispatcher when the network conditions change (see ``JobQueue/Configuration/network``).
    private let networkObservation: NetworkObservation?
    /// Where the next claim's walk over the queues starts, moved on at every claim so that a busy
    /// queue cannot starve the others.
    let rotation = Atomic<Int>(0)
    /// Attempts whose hand-off is being committed or its transfer started (see ``handOff(_:runner:to:stop:start:)``).
    let startingHandOffs = Mutex<Set<AttemptID>>([])

    init(queue: JobQueue, store: any JobStore, registry: JobRegistry, jobChanges: ChangeSignal) {
        self.queue = queue
        self.store = store
        self.registry = registry
        self.configuration = queue.configuration
        self.logger = queue.logger
        self.logsNothing = queue.logger.handler is SwiftLogNoOpLogHandler
        self.jobChanges = jobChanges
        self.recorder = AttemptRecorder(store: store, time: queue.configuration.timeSource)
        self.steps = StepRecorder(store: store)
        self.handlerStarts = HandlerStarts(onStoreExecutor: store.preferredTaskExecutor != nil)
        let wake = self.wake
        self.networkObservation = queue.configuration.network?.observe { wake.signal() }
    }

    /// The current time by the configured time source, in milliseconds since 1970.
    var now: Int64 { configuration.timeSource.nowMilliseconds }

    /// Runs jobs until graceful shutdown or cancellation; see ``JobQueue/run()``.
    func run() async throws {
        guard state.start() else {
            throw DurableQueueError(.invalidArgument, "run() is already running on this JobQueue", path: store.location)
        }
        defer { state.reset() }
        try await startUp()
        let startedAt = now
        await recordPresence(startedAt: startedAt)
        lookUpTracer()
        do {
            try await runLoops(startedAt: startedAt)
        } catch {
            await forgetPresence()
            throw error
        }
        await forgetPresence()
        logger.debug("job queue stopped", metadata: ["worker.id": "\(configuration.workerID)"])
        if let failure = state.failure { throw failure }
    }

    /// The loops of a run that started at `startedAt`: maintenance, schedules and the dispatcher,
    /// until graceful shutdown or cancellation, then the running jobs' end.
    private func runLoops(startedAt: Int64) async throws {
        // On the store's executor where it names one: its calls then cost no hand-off between threads.
        try await withTaskExecutorPreference(store.preferredTaskExecutor) {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { await self.maintain(startedAt: startedAt) }
                    group.addTask { await self.fireSchedules() }
                    await self.dispatch(into: &group)
                    // Also when the task was cancelled: no more claims along with endings either.
                    self.state.beginShutdown()
                    self.scheduleWake.signal()
                    await self.finishRunning(into: &group, stopAt: self.now + self.configuration.gracefulShutdownTimeout.milliseconds)
                    self.state.finish()
                    self.maintenanceWake.signal()
                }
            } onGracefulShutdown: {
                self.state.beginShutdown()
                self.wake.signal()
                self.scheduleWake.signal()
            }
        }
    }

    private func startUp() async throws {
        logger.debug("job queue starting", metadata: ["worker.id": "\(configuration.workerID)", "file": "\(store.location)"])
        await recoverExpiredLeases(includingDeadLocalWorkers: configuration.recoverDeadLocalWorkers)
        await reconcileCarriersAtStart()
        // Only for a logger that shows it: counting reads every waiting job.
        guard logger.logLevel <= .info else { return }
        let runnable = registry.runnable
        // Only the jobs of the queues this worker runs, counted by kind and version.
        let waiting = try await store.waitingJobsByKind().filter { configuration.queues?.contains($0.key.queue) ?? true }
        let byKind = Dictionary(waiting.map { ($0.key.job, $0.value) }, uniquingKeysWith: +)
        for (job, count) in runnable.notRun(among: byKind).sorted(by: { $0.key < $1.key }) {
            let registered = runnable.versions[job.kind]
            let why =
                registered.map { "this process runs '\(job.kind)' at versions \($0.lowerBound)–\($0.upperBound)" }
                ?? "this process does not register that job type"
            logger.info(
                "\(count) job(s) of '\(job)' wait for a process that runs version \(job.version): \(why)",
                metadata: ["job.kind": "\(job.kind)", "job.version": "\(job.version)"])
        }
    }

    /// Looks up the tracer attempts report to, once per run: the configured one, or the one the
    /// application bootstrapped before the run started.
    func lookUpTracer() {
        runTracer.withLock { $0 = Self.recordingTracer(queue.tracer) }
    }

    /// The tracer of the current run; nil when nothing traces.
    var activeTracer: (any Tracer)? { runTracer.withLock { $0 } }

    /// Tells every attempt of job `id` running here to stop: its cancel was requested.
    func stopCancelledJob(_ id: JobID) {
        state.stop(job: id, .cancelRequested)
    }
}
