import Synchronization

/// The engine's in-memory bookkeeping: which attempts run here, and whether it is shutting down.
///
/// Synchronous (a `Mutex`) because graceful shutdown and cancel reach it from non-async contexts.
/// Everything here is also in SQLite; losing it loses nothing.
final class EngineState: Sendable {
    private struct State {
        var isRunning = false
        var isShuttingDown = false
        var isFinished = false
        var running: [JobID: StopSignal] = [:]
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

    /// Records that claimed `jobs` run here from now on (they count at once), and keeps them for
    /// ``takeAdmitted()``.
    func admit(_ jobs: [ClaimedJob]) {
        let admitted = jobs.map { (job: $0, stop: StopSignal()) }
        state.withLock { state in
            for (job, stop) in admitted { state.running[job.id] = stop }
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

    /// Forgets attempt `id`.
    func remove(_ id: JobID) { _ = state.withLock { $0.running.removeValue(forKey: id) } }
    /// How many attempts run here.
    var runningCount: Int { state.withLock { $0.running.count } }
    /// The attempts running here.
    var runningIDs: Set<JobID> { state.withLock { Set($0.running.keys) } }

    /// Tells attempt `id`, if it runs here, to stop for `reason`.
    func stop(_ id: JobID, _ reason: StopReason) {
        state.withLock { $0.running[id] }?.stop(reason)
    }

    /// Tells every attempt running here to stop for `reason`.
    func stopAll(_ reason: StopReason) {
        for signal in state.withLock({ Array($0.running.values) }) { signal.stop(reason) }
    }
}
