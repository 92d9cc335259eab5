import Synchronization

/// The engine's in-memory bookkeeping: its lifecycle, which attempts run here, and the room claims
/// under way have reserved.
///
/// Synchronous (a `Mutex`) because graceful shutdown and cancel reach it from non-async contexts.
/// Everything here is also in the store; losing it loses nothing.
///
/// Room: at most ``JobQueue/Configuration/maxConcurrentJobs`` attempts run here. A claim reserves
/// its room here *before* it asks the store, and the jobs it claimed take the reservation's place
/// when it is admitted, so two claims at once (the dispatcher's, and one made along with recorded
/// endings) never count the same free room.
final class EngineState: Sendable {
    /// Where the engine is in its life.
    enum Phase: Sendable, Equatable {
        /// Not running: `run()` may start it.
        case stopped
        /// Claiming and running jobs.
        case running
        /// No more claims; running attempts end (or are stopped and given back).
        case shuttingDown
        /// Every attempt has ended; maintenance stops.
        case finished
    }

    /// One attempt running here (or admitted and about to start).
    fileprivate struct Running {
        let stop: StopSignal
        /// When its lease ends unless renewed, in milliseconds since 1970.
        var leaseExpiresAt: Int64
    }

    fileprivate struct State {
        var phase = Phase.stopped
        /// Why the engine stops on its own: a storage error that retrying did not fix.
        var failure: DurableQueueError?
        /// Since when (ms since 1970) every store write of the engine has failed; nil while they succeed.
        var failingSince: Int64?
        /// Whether the latest failure was protected data being unavailable: then any call that
        /// succeeds, a read too, shows that it is available again.
        var unavailable = false
        var running: [AttemptID: Running] = [:]
        /// Claimed attempts counted in `running` whose tasks the dispatcher has yet to start.
        var admitted: [(job: ClaimedJob, stop: StopSignal)] = []
        /// Room reserved by claims under way.
        var reserved = 0
        /// Waiting for every claim under way to be admitted (see ``claimsSettled()``).
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
        /// At most this many attempts run at once in this run, whatever room a claim asks for.
        var concurrencyCap = Int.max
        /// How many more attempts this run may claim (a drain's limit).
        var claimsLeft = Int.max
        /// Whether the caller cancelled this run (a drain's task).
        var cancelled = false
        /// Whether this run is a drain (see ``JobEngine/drain(_:)``), which claims although the
        /// process paused: it was asked for after the pause.
        var isDrain = false
        /// Whether this process paused: a run that is not a drain claims nothing. Kept from run
        /// to run (see ``JobQueue/pauseInThisProcess(gracePeriod:)``).
        var paused = false
        /// Whether a pause ended this run (a drain).
        var endedByPause = false
        /// The engine's loops (dispatch, maintenance, schedules) running, and those of them
        /// parked by a pause: waiting for the resume, with no store call under way.
        var loops = 0
        var parkedLoops = 0
        /// How many claims of ``JobQueue/run()`` found nothing to claim while nothing ran here.
        var idleClaims = 0
        /// Pauses and resumes so far (see ``pauseTransitions``).
        var pauseTransitions = 0
    }

    /// Attempts of the current run whose ending was recorded, and attempts given back uncounted.
    private let ended = Atomic<Int>(0)
    private let givenBack = Atomic<Int>(0)

    private let state = Mutex(State())

    /// The current phase.
    var phase: Phase { state.withLock { $0.phase } }

    /// Starts the engine's life anew; false if it is not stopped. A run claims at most `claims`
    /// attempts, and runs at most `concurrency` at once.
    func start(concurrency: Int = .max, claims: Int = .max, isDrain: Bool = false) -> Bool {
        let started = state.withLock { state in
            guard state.phase == .stopped else { return false }
            state = State(paused: state.paused)
            state.phase = .running
            state.isDrain = isDrain
            state.concurrencyCap = concurrency
            state.claimsLeft = claims
            return true
        }
        if started {
            ended.store(0, ordering: .relaxed)
            givenBack.store(0, ordering: .relaxed)
        }
        return started
    }

    /// Notes that an attempt of this run ended and its ending was recorded (or discarded by the fence).
    func noteEnded() { ended.add(1, ordering: .relaxed) }

    /// Notes that an attempt of this run was given back to `pending`, uncounted.
    func noteGivenBack() { givenBack.add(1, ordering: .relaxed) }

    /// The attempts of this run that ended, and those given back.
    var tally: (ended: Int, givenBack: Int) { (ended.load(ordering: .relaxed), givenBack.load(ordering: .relaxed)) }

    /// Marks the engine as stopped, so `run()` may be called again.
    func reset() {
        let waiters = state.withLock { state in
            defer { state = State(paused: state.paused) }
            return state.settledWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stop claiming; running attempts may finish.
    func beginShutdown() {
        state.withLock { if $0.phase == .running { $0.phase = .shuttingDown } }
    }

    /// The caller cancelled the run: shutdown begins (nothing if the engine is not running).
    func cancelRun() {
        state.withLock { state in
            guard state.phase == .running else { return }
            state.cancelled = true
            state.phase = .shuttingDown
        }
    }

    /// Whether the caller cancelled this run.
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    // MARK: Pause

    /// This process paused: a run that is not a drain claims nothing from now on, and a drain
    /// under way ends as if cancelled.
    func pause() {
        state.withLock { state in
            if !state.paused { state.pauseTransitions += 1 }
            state.paused = true
            guard state.isDrain && state.phase == .running else { return }
            state.cancelled = true
            state.endedByPause = true
            state.phase = .shuttingDown
        }
    }

    /// This process resumed: runs claim again.
    func resume() {
        state.withLock { state in
            if state.paused { state.pauseTransitions += 1 }
            state.paused = false
        }
    }

    /// How many times this process paused or resumed: a drain lent the background time by a
    /// paused ``JobQueue/run()`` pauses it again only if nobody else did either meanwhile.
    var pauseTransitions: Int { state.withLock { $0.pauseTransitions } }

    /// Whether ``JobQueue/run()`` runs (not a drain) and claims, or is paused.
    var isServiceRunning: Bool { state.withLock { $0.phase == .running && !$0.isDrain } }

    /// Notes that a claim of ``JobQueue/run()`` found nothing while nothing ran here.
    func noteIdleClaim() { state.withLock { $0.idleClaims += 1 } }

    /// How many claims of ``JobQueue/run()`` found nothing while nothing ran here.
    var idleClaims: Int { state.withLock { $0.idleClaims } }

    /// Whether this process paused.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// Whether a pause ended this run.
    var wasEndedByPause: Bool { state.withLock { $0.endedByPause } }

    /// Whether nothing runs here that a pause waits for: no attempt runs or is being claimed, no
    /// drain is under way, and every loop of the engine is parked.
    var isQuiet: Bool {
        state.withLock { state in
            state.running.isEmpty && state.reserved == 0 && !(state.isDrain && state.phase != .stopped)
                && state.parkedLoops == state.loops
        }
    }

    /// Notes that one of the engine's loops started (`true`) or ended.
    func loopRuns(_ runs: Bool) {
        state.withLock { $0.loops += runs ? 1 : -1 }
    }

    /// Notes that a loop parked for a pause (`true`: it waits for the resume, with no store call
    /// under way) or went on.
    func loopParked(_ parked: Bool) {
        state.withLock { $0.parkedLoops += parked ? 1 : -1 }
    }

    /// Whether this run has claimed as many attempts as it may.
    var claimsExhausted: Bool { state.withLock { $0.claimsLeft <= 0 } }

    /// Whether claiming has stopped (shutdown began, or the engine finished).
    var isShuttingDown: Bool { state.withLock { $0.phase == .shuttingDown || $0.phase == .finished } }

    /// Every attempt has ended: maintenance may stop.
    func finish() { state.withLock { $0.phase = .finished } }

    /// Whether the engine has finished.
    var isFinished: Bool { state.withLock { $0.phase == .finished } }

    /// Stops the engine because of `error` (the first one given wins): shutdown begins, and `run()`
    /// throws it once every attempt has ended.
    func fail(_ error: DurableQueueError) {
        state.withLock { state in
            if state.failure == nil { state.failure = error }
            if state.phase == .running { state.phase = .shuttingDown }
        }
    }

    /// The error the engine stopped for, if it did.
    var failure: DurableQueueError? { state.withLock { $0.failure } }

    /// Notes that a store write failed at `now`, and returns since when writes have been failing
    /// (`now` for the first failure after a success).
    func storageFailed(at now: Int64, unavailable: Bool = false) -> Int64 {
        state.withLock { state in
            if state.failingSince == nil || state.unavailable != unavailable { state.failingSince = now }
            state.unavailable = unavailable
            return state.failingSince ?? now
        }
    }

    /// Since when (ms since 1970) the engine's store calls have failed; nil while they succeed.
    var failingSince: Int64? { state.withLock { $0.failingSince } }

    /// Notes that a store write succeeded, ending any run of failures.
    func storageSucceeded() {
        state.withLock { state in
            state.failingSince = nil
            state.unavailable = false
        }
    }

    /// Notes that a store read succeeded: it ends a wait for protected data (not a run of failing writes).
    func readSucceeded() {
        state.withLock { state in
            guard state.unavailable else { return }
            state.failingSince = nil
            state.unavailable = false
        }
    }

    // MARK: Room

    /// Reserves the room a claim may fill: `maximum` attempts here, plus `freed` ones counted as
    /// running whose endings the same transaction records, less those running and reserved. Nothing
    /// once shutdown has begun.
    ///
    /// - Returns: The room reserved; give it back with ``admit(_:reserved:)`` or ``release(reserved:)``.
    func reserveRoom(maximum: Int, freeing freed: Int = 0) -> Int {
        state.withLock { state in
            let room = state.room(maximum: maximum, freeing: freed)
            state.reserved += room
            return room
        }
    }

    /// Records that claimed `jobs` run here from now on, in place of the `reserved` room their claim
    /// held and of the `ending` attempts (their endings committed), and keeps them for ``takeAdmitted()``.
    func admit(_ jobs: [ClaimedJob], reserved: Int, ending: [AttemptID] = []) {
        let admitted = jobs.map { (job: $0, stop: StopSignal()) }
        let waiters = state.withLock { state in
            for attempt in ending { state.running.removeValue(forKey: attempt) }
            for (job, stop) in admitted {
                state.running[job.attemptID] = Running(stop: stop, leaseExpiresAt: job.leaseExpiresAt)
            }
            state.claimsLeft -= admitted.count
            state.admitted += admitted
            state.reserved -= reserved
            return state.takeSettledWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether a claim could reserve room now: fewer than `maximum` attempts run or are reserved.
    func hasRoom(maximum: Int) -> Bool {
        state.withLock { $0.room(maximum: maximum) > 0 }
    }

    /// Gives back room a claim reserved and did not use (it failed).
    func release(reserved: Int) {
        admit([], reserved: reserved)
    }

    /// Returns once no claim is under way: every job claimed so far has been admitted.
    func claimsSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled = state.withLock { state in
                if state.reserved == 0 { return true }
                state.settledWaiters.append(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }

    /// The attempts admitted since the last call, each with its stop signal, for their tasks to start.
    func takeAdmitted() -> [(job: ClaimedJob, stop: StopSignal)] {
        state.withLock { state in
            defer { state.admitted.removeAll() }
            return state.admitted
        }
    }

    /// The first attempt admitted and not yet taken, with its stop signal, for a task whose
    /// attempt has ended to run next; nil if there is none.
    func takeOneAdmitted() -> (job: ClaimedJob, stop: StopSignal)? {
        state.withLock { state in state.admitted.isEmpty ? nil : state.admitted.removeFirst() }
    }

    // MARK: Running attempts

    /// Forgets `attempt`, stopped by `stop`, unless it is gone already: its ending was committed
    /// and (a snooze or give-back takes its number back) a new attempt with its number may run.
    func remove(_ attempt: AttemptID, stop: StopSignal) {
        state.withLock { state in
            if state.running[attempt]?.stop === stop { state.running.removeValue(forKey: attempt) }
        }
    }
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

    /// Whether `attempt` runs here and was told to stop already.
    func isStopping(_ attempt: AttemptID) -> Bool {
        state.withLock { $0.running[attempt]?.stop.reason != nil }
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

    /// Gives up waiting for the handlers of every attempt running here (see ``StopSignal/abandon()``).
    func abandonAll() {
        for signal in state.withLock({ $0.running.values.map(\.stop) }) { signal.abandon() }
    }
}

extension EngineState.State {
    /// A new run's state, keeping whether the process paused.
    fileprivate init(paused: Bool) {
        self.init()
        self.paused = paused
    }

    /// The room left under `maximum` attempts (and the run's cap), less those running and reserved,
    /// within the claims the run has left; none once shutdown has begun. `freed` of the running
    /// attempts are ending: their places count as free.
    fileprivate func room(maximum: Int, freeing freed: Int = 0) -> Int {
        guard phase == .running, isDrain || !paused else { return 0 }
        return max(0, min(min(maximum, concurrencyCap) + freed - running.count, claimsLeft) - reserved)
    }

    /// The waiters of ``EngineState/claimsSettled()`` to resume, if no claim is under way any more.
    fileprivate mutating func takeSettledWaiters() -> [CheckedContinuation<Void, Never>] {
        guard reserved == 0 else { return [] }
        defer { settledWaiters.removeAll() }
        return settledWaiters
    }
}
