import Synchronization

/// The engine's ``EngineMachine`` behind a lock, and the hands that carry out its actions: stop
/// signals told to stop or abandoned, and claims' waiters woken. The machine decides; this type only
/// serializes the events and acts on what they return, outside the lock.
///
/// Synchronous (a `Mutex`) because graceful shutdown and cancel reach it from non-async contexts.
/// Everything here is also in the store; losing it loses nothing.
final class EngineState: Sendable {
    private struct Locked {
        var machine = EngineMachine()
        /// Waiting for every claim under way to be admitted (see ``claimsSettled()``).
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Attempts of the current run whose ending was recorded, and attempts given back uncounted.
    private let ended = Atomic<Int>(0)
    private let givenBack = Atomic<Int>(0)

    private let locked = Mutex(Locked())

    /// Reads the machine (a closure, not a key path: a key path's application costs a runtime call).
    private func read<T>(_ body: (borrowing EngineMachine) -> T) -> T {
        locked.withLock { body($0.machine) }
    }

    /// Gives the machine an event, then carries out the actions it returned, and returns them.
    @discardableResult
    private func send(_ event: (inout EngineMachine) -> [EngineMachine.Action]) -> [EngineMachine.Action] {
        let (actions, waiters) = locked.withLock { locked -> ([EngineMachine.Action], [CheckedContinuation<Void, Never>]) in
            let actions = event(&locked.machine)
            guard actions.contains(where: { if case .claimsSettled = $0 { true } else { false } }) else { return (actions, []) }
            defer { locked.settledWaiters.removeAll() }
            return (actions, locked.settledWaiters)
        }
        for action in actions {
            switch action {
            case .stop(_, let signal, let reason): signal.stop(reason)
            case .abandon(let signal): signal.abandon()
            case .claimsSettled: break  // its waiters are resumed below, outside the switch
            case .wakeDispatcher: break  // the caller holds the dispatcher's signal
            }
        }
        for waiter in waiters { waiter.resume() }
        return actions
    }

    /// Changes the machine where the event returns no action.
    private func update<T>(_ event: (inout EngineMachine) -> T) -> T {
        locked.withLock { event(&$0.machine) }
    }

    /// The current phase.
    var phase: EngineMachine.Phase { read { $0.phase } }

    /// Starts the engine's life anew; false if it is not stopped. A run claims at most `claims`
    /// attempts, and runs at most `concurrency` at once.
    func start(concurrency: Int = .max, claims: Int = .max, isDrain: Bool = false) -> Bool {
        let started = update { $0.start(concurrency: concurrency, claims: claims, isDrain: isDrain) }
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
    func reset() { send { $0.reset() } }

    /// Stop claiming; running attempts may finish.
    func beginShutdown() { update { $0.beginShutdown() } }

    /// The caller cancelled the run: shutdown begins (nothing if the engine is not running).
    func cancelRun() { update { $0.cancel() } }

    /// Whether the caller cancelled this run.
    var wasCancelled: Bool { read { $0.cancelled } }

    // MARK: Pause

    /// This process paused: a run that is not a drain claims nothing from now on, and a drain
    /// under way ends as if cancelled.
    func pause() { update { $0.pause() } }

    /// This process resumed: runs claim again.
    func resume() { update { $0.resume() } }

    /// How many times this process paused or resumed in this run: a drain lent the background time
    /// by a paused ``JobQueue/run()`` pauses it again only if nobody else did either meanwhile.
    var pauseTransitions: Int { read { $0.pauseTransitions } }

    /// Whether ``JobQueue/run()`` runs (not a drain) and claims, or is paused.
    var isServiceRunning: Bool { read { $0.phase == .running && !$0.isDrain } }

    /// Notes that a claim of ``JobQueue/run()`` found nothing while nothing ran here.
    func noteIdleClaim() { update { $0.noteIdleClaim() } }

    /// How many claims of ``JobQueue/run()`` found nothing while nothing ran here.
    var idleClaims: Int { read { $0.idleClaims } }

    /// Whether this process paused.
    var isPaused: Bool { read { $0.paused } }

    /// Whether a pause ended this run.
    var wasEndedByPause: Bool { read { $0.endedByPause } }

    /// Whether nothing runs here that a pause waits for (see ``EngineMachine/isQuiet``).
    var isQuiet: Bool { read { $0.isQuiet } }

    /// Notes that one of the engine's loops started (`true`) or ended.
    func loopRuns(_ runs: Bool) { update { $0.loopRuns(runs) } }

    /// Notes that a loop parked for a pause (`true`: it waits for the resume, with no store call
    /// under way) or went on.
    func loopParked(_ parked: Bool) { update { $0.loopParked(parked) } }

    /// Whether this run has claimed as many attempts as it may.
    var claimsExhausted: Bool { read { $0.claimsExhausted } }

    /// Whether claiming has stopped (shutdown began, or the engine finished).
    var isShuttingDown: Bool { read { $0.phase == .shuttingDown || $0.phase == .finished } }

    /// Every attempt has ended: maintenance may stop.
    func finish() { update { $0.finish() } }

    /// Whether the engine has finished.
    var isFinished: Bool { read { $0.phase == .finished } }

    /// Stops the engine because of `error` (the first one given wins): shutdown begins, and `run()`
    /// throws it once every attempt has ended.
    func fail(_ error: DurableQueueError) { update { $0.fail(error) } }

    /// The error the engine stopped for, if it did.
    var failure: DurableQueueError? { read { $0.failure } }

    /// Notes that a store write failed at `now`, and returns since when writes have been failing
    /// (`now` for the first failure after a success).
    func storageFailed(at now: Int64, unavailable: Bool = false) -> Int64 {
        update { $0.storageFailed(at: now, unavailable: unavailable) }
    }

    /// Since when (ms since 1970) the engine's store calls have failed; nil while they succeed.
    var failingSince: Int64? { read { $0.failingSince } }

    /// Notes that a store write succeeded, ending any run of failures.
    func storageSucceeded() { update { $0.storageSucceeded() } }

    /// Notes that a store read succeeded: it ends a wait for protected data (not a run of failing writes).
    func readSucceeded() { update { $0.readSucceeded() } }

    // MARK: Room

    /// Reserves the room a claim may fill (see ``EngineMachine/room(maximum:freeing:)``).
    ///
    /// - Returns: The room reserved; give it back with ``admit(_:reserved:ending:)`` or ``release(reserved:)``.
    func reserveRoom(maximum: Int, freeing freed: Int = 0) -> Int {
        update { $0.reserveRoom(maximum: maximum, freeing: freed) }
    }

    /// Records that claimed `jobs` run here from now on, in place of the `reserved` room their claim
    /// held and of the `ending` attempts (their endings committed), and keeps them for ``takeAdmitted()``;
    /// whether the dispatcher must be woken to start some of them.
    @discardableResult
    func admit(_ jobs: [ClaimedJob], reserved: Int, ending: [AttemptID] = []) -> Bool {
        let admitted = jobs.map { (job: $0, stop: StopSignal()) }
        return send { $0.admit(admitted, reserved: reserved, ending: ending) }.contains {
            if case .wakeDispatcher = $0 { true } else { false }
        }
    }

    /// Whether a claim could reserve room now: fewer than `maximum` attempts run or are reserved.
    func hasRoom(maximum: Int) -> Bool { read { $0.room(maximum: maximum) > 0 } }

    /// Gives back room a claim reserved and did not use (it failed).
    func release(reserved: Int) { admit([], reserved: reserved) }

    /// Returns once no claim is under way: every job claimed so far has been admitted.
    func claimsSettled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled = locked.withLock { locked in
                if locked.machine.reserved == 0 { return true }
                locked.settledWaiters.append(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
    }

    /// The attempts admitted since the last call, each with its stop signal, for their tasks to start.
    func takeAdmitted() -> [(job: ClaimedJob, stop: StopSignal)] { update { $0.takeAdmitted() } }

    /// The first attempt admitted and not yet taken, with its stop signal, for a task whose
    /// attempt has ended to run next; nil if there is none.
    func takeOneAdmitted() -> (job: ClaimedJob, stop: StopSignal)? { update { $0.takeOneAdmitted() } }

    // MARK: Running attempts

    /// Forgets `attempt`, stopped by `stop`, unless it is gone already: its ending was committed
    /// and (a snooze or give-back takes its number back) a new attempt with its number may run.
    func remove(_ attempt: AttemptID, stop: StopSignal) { update { $0.attemptReturned(attempt, stop: stop) } }

    /// How many attempts run here.
    var runningCount: Int { read { $0.running.count } }
    /// The attempts running here.
    var runningAttempts: [AttemptID] { read { Array($0.running.keys) } }
    /// The jobs with an attempt running here: this process must not claim them again until it ends.
    var runningJobs: Set<JobID> { read { Set($0.running.keys.map(\.job)) } }

    /// When `attempt`'s lease ends as far as this process knows (its claim, or its latest renewal);
    /// nil if it does not run here.
    func leaseExpiry(of attempt: AttemptID) -> Int64? { read { $0.running[attempt]?.leaseExpiresAt } }

    /// The store answered a renewal of `asked` until `expiresAt` with the leases still `held`: stops
    /// the attempts whose lease was lost and those whose cancel was requested (see
    /// ``EngineMachine/leasesRenewed(_:held:until:handingOff:)``).
    func leasesRenewed(_ asked: [AttemptID], held: [HeldLease], until expiresAt: Int64, handingOff: Set<AttemptID>) {
        send { $0.leasesRenewed(asked, held: held, until: expiresAt, handingOff: handingOff) }
    }

    /// The store could not renew the leases of `asked` at `now`: stops those whose lease ran out.
    ///
    /// - Returns: The attempts stopped.
    func leasesNotRenewed(_ asked: [AttemptID], at now: Int64) -> [AttemptID] {
        send { $0.leasesNotRenewed(asked, at: now) }.compactMap { action in
            if case .stop(let attempt, _, _) = action { attempt } else { nil }
        }
    }

    /// Tells `attempt`, if it runs here, to stop for `reason`.
    func stop(_ attempt: AttemptID, _ reason: StopReason) { send { $0.stop(attempt, reason) } }

    /// Tells the attempt that `signal` stops that its job's timeout passed.
    func timedOut(_ attempt: AttemptID, stop signal: StopSignal) { send { $0.timedOut(attempt, stop: signal) } }

    /// Tells every attempt of job `id` running here to stop for `reason`.
    func stop(job id: JobID, _ reason: StopReason) { send { $0.stop(job: id, reason) } }

    /// Tells every attempt running here to stop for `reason`.
    func stopAll(_ reason: StopReason) { send { $0.stopAll(reason) } }

    /// Gives up waiting for the handlers of every attempt running here (see ``StopSignal/abandon()``).
    func abandonAll() { send { $0.abandonAll() } }
}
