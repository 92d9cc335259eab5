/// The engine's bookkeeping as a value: its lifecycle, the pause, the storage-failure clock, the room
/// claims reserve and the attempts that run here. Each mutating method is an event (a claim
/// admitted, an attempt ended, leases renewed or not, a storage call failed, a pause, a drain's
/// deadline, a cancel) and returns what the engine must do about it; the machine itself does
/// nothing, reads no clock (times come with the events) and calls no store, so tests drive it alone.
///
/// ``EngineState`` holds one behind a lock and carries its actions out.
///
/// Room: at most `maximum` attempts run here. A claim reserves its room *before* it asks the store,
/// and the jobs it claimed take the reservation's place when they are admitted, so two claims at
/// once (the dispatcher's, and one made along with recorded endings) never count the same free room.
struct EngineMachine: Sendable {
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

    /// What the engine does after an event.
    enum Action: Sendable {
        /// Tell `attempt`, through its stop signal, to stop for `reason` (its first stop).
        case stop(AttemptID, StopSignal, StopReason)
        /// Give up waiting for the handler of the attempt stopped by `signal`.
        case abandon(StopSignal)
        /// No claim is under way any more: wake whoever waits for claims to settle.
        case claimsSettled
        /// Attempts were admitted that no returning task will start: wake the dispatcher to start them.
        case wakeDispatcher
    }

    /// One attempt running here (or admitted and about to start).
    struct Running: Sendable {
        let stop: StopSignal
        /// When its lease ends unless renewed, in milliseconds since 1970.
        var leaseExpiresAt: Int64
        /// Why the machine told it to stop, if it did (the first reason; later ones change nothing).
        var stopReason: StopReason?
    }

    private(set) var phase = Phase.stopped
    /// Why the engine stops on its own: a storage error that retrying did not fix.
    private(set) var failure: DurableQueueError?
    /// Since when (ms since 1970) every store write of the engine has failed; nil while they succeed.
    private(set) var failingSince: Int64?
    /// Whether the latest failure was protected data being unavailable: then any call that
    /// succeeds, a read too, shows that it is available again.
    private var unavailable = false
    private(set) var running: [AttemptID: Running] = [:]
    /// Claimed attempts counted in `running` whose tasks the dispatcher has yet to start.
    private var admitted: [(job: ClaimedJob, stop: StopSignal)] = []
    /// Room reserved by claims under way.
    private(set) var reserved = 0
    /// At most this many attempts run at once in this run, whatever room a claim asks for.
    private var concurrencyCap = Int.max
    /// How many more attempts this run may claim (a drain's limit).
    private var claimsLeft = Int.max
    /// Whether the caller cancelled this run (a drain's task, or its deadline).
    private(set) var cancelled = false
    /// Whether this run is a drain (see ``JobEngine/drain(_:)``), which claims although the
    /// process paused: it was asked for after the pause.
    private(set) var isDrain = false
    /// Whether this process paused: a run that is not a drain claims nothing. Kept from run to run
    /// (see ``JobQueue/pauseInThisProcess(gracePeriod:)``).
    private(set) var paused = false
    /// Whether a pause ended this run (a drain).
    private(set) var endedByPause = false
    /// The engine's loops (dispatch, maintenance, schedules) running, and those of them parked by
    /// a pause: waiting for the resume, with no store call under way.
    private var loops = 0
    private var parkedLoops = 0
    /// How many claims of ``JobQueue/run()`` found nothing to claim while nothing ran here.
    private(set) var idleClaims = 0
    /// Pauses and resumes in this run so far: a drain lent the background time by a paused
    /// ``JobQueue/run()`` pauses it again only if nobody else did either meanwhile.
    private(set) var pauseTransitions = 0

    // MARK: Lifecycle

    /// A run starts: at most `concurrency` attempts at once, `claims` in all. False (and nothing
    /// changes) unless the engine is stopped.
    mutating func start(concurrency: Int = .max, claims: Int = .max, isDrain: Bool = false) -> Bool {
        guard phase == .stopped else { return false }
        self = EngineMachine(paused: paused)
        phase = .running
        self.isDrain = isDrain
        concurrencyCap = concurrency
        claimsLeft = claims
        return true
    }

    /// The run is over: the engine is stopped and may run again; whether the process paused stays.
    mutating func reset() -> [Action] {
        self = EngineMachine(paused: paused)
        return [.claimsSettled]
    }

    /// Shutdown begins: no more claims; running attempts may finish.
    mutating func beginShutdown() {
        if phase == .running { phase = .shuttingDown }
    }

    /// The caller cancelled the run (or a drain's deadline passed): shutdown begins. Nothing if the
    /// engine is not running.
    mutating func cancel() {
        guard phase == .running else { return }
        cancelled = true
        phase = .shuttingDown
    }

    /// Every attempt has ended: maintenance may stop.
    mutating func finish() { phase = .finished }

    /// A storage error that retrying did not fix stops the engine (the first one given wins):
    /// shutdown begins, and the run throws it once every attempt has ended.
    mutating func fail(_ error: DurableQueueError) {
        if failure == nil { failure = error }
        if phase == .running { phase = .shuttingDown }
    }

    /// One of the engine's loops started (`true`) or ended.
    mutating func loopRuns(_ runs: Bool) { loops += runs ? 1 : -1 }

    /// A loop parked for a pause (`true`: it waits for the resume, with no store call under way) or went on.
    mutating func loopParked(_ parked: Bool) { parkedLoops += parked ? 1 : -1 }

    /// A claim of ``JobQueue/run()`` found nothing while nothing ran here.
    mutating func noteIdleClaim() { idleClaims += 1 }

    // MARK: Pause

    /// This process paused: a run that is not a drain claims nothing from now on, and a drain under
    /// way ends as if cancelled.
    mutating func pause() {
        if !paused { pauseTransitions += 1 }
        paused = true
        guard isDrain && phase == .running else { return }
        cancelled = true
        endedByPause = true
        phase = .shuttingDown
    }

    /// This process resumed: runs claim again.
    mutating func resume() {
        if paused { pauseTransitions += 1 }
        paused = false
    }

    /// Whether nothing runs here that a pause waits for: no attempt runs or is being claimed, no
    /// drain is under way, and every loop of the engine is parked.
    var isQuiet: Bool {
        running.isEmpty && reserved == 0 && !(isDrain && phase != .stopped) && parkedLoops == loops
    }

    // MARK: Storage failures

    /// A store write failed at `now`: returns since when writes have been failing (`now` for the
    /// first failure after a success, or the first of another kind).
    mutating func storageFailed(at now: Int64, unavailable: Bool = false) -> Int64 {
        if failingSince == nil || self.unavailable != unavailable { failingSince = now }
        self.unavailable = unavailable
        return failingSince ?? now
    }

    /// A store write succeeded, ending any run of failures.
    mutating func storageSucceeded() {
        failingSince = nil
        unavailable = false
    }

    /// A store read succeeded: it ends a wait for protected data (not a run of failing writes).
    mutating func readSucceeded() {
        guard unavailable else { return }
        storageSucceeded()
    }

    // MARK: Room and claims

    /// The room left under `maximum` attempts (and the run's cap), less those running and reserved,
    /// within the claims the run has left; none once shutdown has begun, or while paused outside a
    /// drain. `freed` of the running attempts are ending: their places count as free.
    func room(maximum: Int, freeing freed: Int = 0) -> Int {
        guard phase == .running, isDrain || !paused else { return 0 }
        return max(0, min(min(maximum, concurrencyCap) + freed - running.count, claimsLeft) - reserved)
    }

    /// A claim is about to ask the store: reserves and returns the room it may fill (see ``room(maximum:freeing:)``).
    mutating func reserveRoom(maximum: Int, freeing freed: Int = 0) -> Int {
        let room = room(maximum: maximum, freeing: freed)
        reserved += room
        return room
    }

    /// A claim committed: `jobs` (each with its stop signal) run here from now on, in place of the
    /// `reserved` room their claim held and of the `ending` attempts, whose endings the same
    /// transaction recorded. A claim that failed admits nothing and gives its room back.
    ///
    /// The dispatcher starts what its own claims admit. Each ending attempt's task, as it returns,
    /// starts one job claimed along with the endings; the dispatcher is woken only for the jobs
    /// beyond those (waking it for every refill cost a job run one at a time a dispatcher round).
    mutating func admit(_ jobs: [(job: ClaimedJob, stop: StopSignal)], reserved: Int, ending: [AttemptID] = []) -> [Action] {
        for attempt in ending { running.removeValue(forKey: attempt) }
        for (job, stop) in jobs {
            running[job.attemptID] = Running(stop: stop, leaseExpiresAt: job.leaseExpiresAt)
        }
        claimsLeft -= jobs.count
        admitted += jobs
        self.reserved -= reserved
        var actions: [Action] = self.reserved == 0 ? [.claimsSettled] : []
        if !ending.isEmpty && jobs.count > ending.count { actions.append(.wakeDispatcher) }
        return actions
    }

    /// Whether this run has claimed as many attempts as it may.
    var claimsExhausted: Bool { claimsLeft <= 0 }

    /// The dispatcher starts the attempts admitted since it last looked.
    mutating func takeAdmitted() -> [(job: ClaimedJob, stop: StopSignal)] {
        defer { admitted.removeAll() }
        return admitted
    }

    /// A task whose attempt ended runs the first attempt admitted and not yet taken, if any.
    mutating func takeOneAdmitted() -> (job: ClaimedJob, stop: StopSignal)? {
        admitted.isEmpty ? nil : admitted.removeFirst()
    }

    // MARK: Running attempts

    /// The task of `attempt`, stopped by `stop`, returned: forgets it unless it is gone already (its
    /// ending was committed and, a snooze or give-back taking its number back, a new attempt with
    /// that number may run).
    mutating func attemptReturned(_ attempt: AttemptID, stop: StopSignal) {
        if running[attempt]?.stop === stop { running.removeValue(forKey: attempt) }
    }

    /// The store answered a renewal of `asked` until `expiresAt` with the leases still `held`: those
    /// renewed move their expiry; each other attempt asked for (unless `handingOff`: a hand-off holds
    /// no lease once it commits) lost its lease, and each held lease whose cancel was requested is
    /// to be cancelled.
    mutating func leasesRenewed(
        _ asked: [AttemptID], held: [HeldLease], until expiresAt: Int64, handingOff: Set<AttemptID>
    ) -> [Action] {
        for lease in held where lease.isRenewed { running[lease.attempt]?.leaseExpiresAt = expiresAt }
        let holding = Set(held.map(\.attempt))
        let lost = asked.filter { !holding.contains($0) && !handingOff.contains($0) }
        return lost.flatMap { stop($0, .leaseLost) } + held.filter(\.cancelRequested).flatMap { stop($0.attempt, .cancelRequested) }
    }

    /// The store could not renew the leases at `now`: each of `asked` whose lease has run out as far
    /// as this process knows, and not told to stop yet, is stopped as lost (another worker may have
    /// taken its job back: its result would be discarded).
    mutating func leasesNotRenewed(_ asked: [AttemptID], at now: Int64) -> [Action] {
        asked.filter { (running[$0]?.leaseExpiresAt ?? .max) <= now }.flatMap { stop($0, .leaseLost) }
    }

    /// `attempt`, if it runs here and was not told to stop before, is to stop for `reason`.
    mutating func stop(_ attempt: AttemptID, _ reason: StopReason) -> [Action] {
        guard let signal = running[attempt]?.stop, running[attempt]?.stopReason == nil else { return [] }
        running[attempt]?.stopReason = reason
        return [.stop(attempt, signal, reason)]
    }

    /// The job's timeout passed for the attempt that `signal` stops (whether or not it is counted
    /// here): it is to stop, unless it was told before.
    mutating func timedOut(_ attempt: AttemptID, stop signal: StopSignal) -> [Action] {
        guard running[attempt]?.stop === signal else { return [.stop(attempt, signal, .timedOut)] }
        return stop(attempt, .timedOut)
    }

    /// Every attempt of job `id` running here is to stop for `reason`.
    mutating func stop(job id: JobID, _ reason: StopReason) -> [Action] {
        running.keys.filter { $0.job == id }.flatMap { stop($0, reason) }
    }

    /// Every attempt running here is to stop for `reason` (those told before keep their reason).
    mutating func stopAll(_ reason: StopReason) -> [Action] {
        running.keys.flatMap { stop($0, reason) }
    }

    /// The grace period is over: give up waiting for the handlers of every attempt running here.
    func abandonAll() -> [Action] {
        running.values.map { .abandon($0.stop) }
    }
}

extension EngineMachine {
    /// A new run's machine, keeping whether the process paused.
    fileprivate init(paused: Bool) {
        self.init()
        self.paused = paused
    }
}
