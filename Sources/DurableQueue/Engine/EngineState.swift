import Synchronization

/// The engine's in-memory bookkeeping: which attempts run here, and whether it is shutting down.
///
/// Synchronous (a `Mutex`) because graceful shutdown and cancel reach it from non-async contexts.
/// Everything here is also in SQLite; losing it loses nothing.
final class EngineState: Sendable {
    /// One attempt running here (or admitted and about to start).
    private struct Running {
        let stop: StopSignal
        /// When its lease ends unless renewed, in milliseconds since 1970.
        var leaseExpiresAt: Int64
    }

    private struct State {
        var isRunning = false
        var isShuttingDown = false
        var isFinished = false
        /// Why the engine stops on its own: a storage error that retrying did not fix.
        var failure: DurableQueueError?
        /// Since when (ms since 1970) every store call of the engine has failed; nil while they succeed.
        var failingSince: Int64?
        var running: [AttemptID: Running] = [:]
        /// Claimed attempts counted in `running` whose tasks the dispatcher has yet to start.
        var admitted: [(job: ClaimedJob, stop: StopSignal)] = []
    }

    private let state = Mutex(State())

    /// Marks the engine as running; false if it already is.
    func start() -> Bool {
        state.withLock { state in
            guard !state.isRunning else { return false }
            state = State()
            state.isRunning = true
            return true
        }
    }

    /// Whether `run()` is active.
    var isRunningForTests: Bool { state.withLock { $0.isRunning } }

    /// Marks the engine as stopped, so `run()` may be called again.
    func reset() {
        state.withLock { $0 = State() }
    }

    /// Stop claiming; running attempts may finish.
    func beginShutdown() { state.withLock { $0.isShuttingDown = true } }
    /// Whether shutdown has begun.
    var isShuttingDown: Bool { state.withLock { $0.isShuttingDown } }
    /// Every attempt has ended: maintenance may stop.
    func finish() { state.withLock { $0.isFinished = true } }
    /// Whether the engine has finished.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Stops the engine because of `error` (the first one given wins): shutdown begins, and `run()`
    /// throws it once every attempt has ended.
    func fail(_ error: DurableQueueError) {
        state.withLock { state in
            if state.failure == nil { state.failure = error }
            state.isShuttingDown = true
        }
    }

    /// The error the engine stopped for, if it did.
    var failure: DurableQueueError? { state.withLock { $0.failure } }

    /// Notes that a store call failed at `now`, and returns since when store calls have been failing
    /// (`now` for the first failure after a success).
    func storageFailed(at now: Int64) -> Int64 {
        state.withLock { state in
            if state.failingSince == nil { state.failingSince = now }
            return state.failingSince ?? now
        }
    }

    /// Notes that a store call succeeded, ending any run of failures.
    func storageSucceeded() { state.withLock { $0.failingSince = nil } }

    /// Records that claimed `jobs` run here from now on (they count at once), and keeps them for
    /// ``takeAdmitted()``.
    func admit(_ jobs: [ClaimedJob]) {
        let admitted = jobs.map { (job: $0, stop: StopSignal()) }
        state.withLock { state in
            for (job, stop) in admitted {
                state.running[job.attemptID] = Running(stop: stop, leaseExpiresAt: job.leaseExpiresAt)
            }
            state.admitted += admitted
        }
    }

    /// The attempts admitted since the last call, each with its stop signal, for their tasks to start.
    func takeAdmitted() -> [(job: ClaimedJob, stop: StopSignal)] {
        state.withLock { state in
            defer { state.admitted.removeAll() }
            return state.admitted
        }
    }

    /// Forgets `attempt`.
    func remove(_ attempt: AttemptID) { _ = state.withLock { $0.running.removeValue(forKey: attempt) } }
    /// How many attempts run here.
    var runningCount: Int { state.withLock { $0.running.count } }
    /// The attempts running here.
    var runningAttempts: [AttemptID] { state.withLock { Array($0.running.keys) } }
    /// The jobs with an attempt running here: this process must not claim them again until it ends.
    var runningJobs: Set<JobID> { state.withLock { Set($0.running.keys.map(\.job)) } }

    /// When `attempt`'s lease ends as far as this process knows (its claim, or its latest renewal);
    /// nil if it does not run here.
    func leaseExpiry(of attempt: AttemptID) -> Int64? {
        state.withLock { $0.running[attempt]?.leaseExpiresAt }
    }

    /// Notes that the leases of `attempts` were renewed until `expiresAt`.
    func renewed(_ attempts: some Sequence<AttemptID>, until expiresAt: Int64) {
        state.withLock { state in
            for attempt in attempts { state.running[attempt]?.leaseExpiresAt = expiresAt }
        }
    }

    /// Tells `attempt`, if it runs here, to stop for `reason`.
    func stop(_ attempt: AttemptID, _ reason: StopReason) {
        state.withLock { $0.running[attempt]?.stop }?.stop(reason)
    }

    /// Tells every attempt of job `id` running here to stop for `reason`.
    func stop(job id: JobID, _ reason: StopReason) {
        let signals = state.withLock { state in state.running.filter { $0.key.job == id }.map(\.value.stop) }
        for signal in signals { signal.stop(reason) }
    }

    /// Tells every attempt running here to stop for `reason`.
    func stopAll(_ reason: StopReason) {
        for signal in state.withLock({ $0.running.values.map(\.stop) }) { signal.stop(reason) }
    }
}
