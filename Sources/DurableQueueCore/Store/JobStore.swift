/// Where jobs live: the boundary between the engine and the façade above it and a database below.
///
/// Every method is one transaction that takes data and gives data back; none runs the caller's code
/// inside its transaction (``updateQueue(named:now:_:)`` applies a pure change of settings). Every
/// state change a method makes updates the job's row and appends its event in that transaction.
/// Times are milliseconds since 1970. A caller gives the time it read; a store that was given a
/// clock (``stampTimes(with:)``) reads it again once its transaction holds its locks and stamps
/// every row, and takes every decision of that transaction, at that later time (never earlier than
/// the caller's): the history then shows changes in the order they were committed.
///
/// Errors are ``DurableQueueError``s: `databaseLocked` and `storage` for failures that may pass (the
/// engine retries them for a while), others for what no retry fixes.
///
/// Writes of a running attempt (its end, progress, heartbeat, release) are fenced: the store accepts
/// one only while the job's row shows that very attempt (job id and attempt number) running under
/// that owner.
///
/// The SQLite conformer is the first; a store for another database conforms in its own target of
/// this package (see the Writing a Store article), and the conformance tests run against each.
package protocol JobStore: JobStoreReader {
    /// Makes every later write read `clock` once its transaction holds its locks, and stamp its
    /// rows with that time (or the caller's, if later). Until then a store stamps the times its
    /// callers give. A queue gives its store the clock its engine reads.
    func stampTimes(with clock: any TimeSource)

    /// Where the engine's own tasks (claims, endings, lease renewals) should run, or nil for Swift's
    /// default: a store whose calls complete on one thread names an executor on that thread, and a
    /// call then costs no hand-off between threads.
    var preferredTaskExecutor: (any TaskExecutor)? { get }

    // MARK: Enqueueing

    /// Inserts `jobs`, all or none, each with its creation event; a job whose unique key an
    /// unfinished job holds follows its policy (keep: the existing one; replace: cancel it, insert).
    func enqueue(_ jobs: [NewJob], now: Int64) async throws -> [EnqueueOutcome]

    /// Runs `body`, one of the core's sequences (``GroupSequences``, ``EndingSequences``,
    /// ``LeaseSequences``), over this store's ``StoreRows`` in one write transaction stamped as every
    /// write is, and commits it; `body` gets the transaction's time. What a sequence does is written
    /// once, in the core: the store implements the row operations.
    ///
    /// - Parameters:
    ///   - operation: What is being done, in words, for the error message.
    ///   - notifying: Whether the change may concern workers of other processes (a store that tells
    ///     its listeners of changes tells them); false for housekeeping such as pruning.
    func runSequence<T: Sendable>(
        _ operation: String, now: Int64, notifying: Bool, _ body: @escaping @Sendable (any StoreRows, Int64) async throws -> T
    ) async throws -> T

    // MARK: Running jobs

    /// Promotes due scheduled jobs, then claims up to `request.room` due jobs as `request` says (see
    /// ``ClaimRequest``), each now `running` under a lease with its attempt counted and its event.
    func claim(_ request: ClaimRequest) async throws -> [ClaimedJob]

    /// Records how attempts ended (each fenced by its attempt; an ending the row no longer shows is
    /// discarded and noted in the history), then claims as `next` asks, in one transaction: the
    /// jobs taking the ended attempts' places cost no second commit.
    func finish(_ endings: [FinishedAttempt], now: Int64, thenClaim next: ClaimRequest?) async throws -> FinishResult

    /// Saves a running attempt's progress (0…1) and checkpoint; false if `owner` no longer holds it.
    /// With no owner, saves those of a handed-off attempt (its carrier's), false unless the row
    /// shows that attempt handed off.
    func saveProgress(_ attempt: AttemptID, owner: String?, progress: Double?, checkpoint: [UInt8]?, now: Int64) async throws
        -> Bool

    /// Extends the leases of `attempts` (a heartbeat); returns those `owner` still holds, with
    /// their cancel flags. A heartbeat never waits for a lock that another transaction holds on a
    /// job's row (it could be waiting for this worker): such an attempt is returned held but not
    /// renewed (``HeldLease/isRenewed``). An attempt missing from the result lost its lease.
    func renewLeases(_ attempts: [AttemptID], owner: String, expiresAt: Int64) async throws -> [HeldLease]

    /// Running jobs of `owner` whose cancel was requested.
    func cancelRequested(owner: String) async throws -> [JobID]

    // MARK: Steps

    /// Records `steps` of running attempts (each its name, output and time, with a history row) in
    /// one transaction, each fenced: per step, true when recorded; false (nothing written) unless
    /// the row shows its attempt running under its owner; `invalidArgument` when the job has a
    /// step of that name already.
    func recordSteps(_ steps: [PendingStep]) async throws -> [Result<Bool, DurableQueueError>]

    // MARK: Hand-offs

    /// The jobs handed off to `carrier` now.
    func handOffs(carrier: String) async throws -> [HandedOffJob]

    /// Calls `onChange` whenever the store hears that another process changed something (a
    /// database that notifies, a watch of the file), and returns true; a store that is never told
    /// returns false, and engines then poll ``changeToken()`` every
    /// ``JobQueue/Configuration/pollInterval``.
    @discardableResult
    func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> Bool

    /// Whether the store hears other processes' changes now: false while the way it hears them is
    /// down (a PostgreSQL store whose `LISTEN` connection was lost, which then calls the observer
    /// once so that idle engines poll every ``JobQueue/Configuration/pollInterval`` until it hears
    /// them again).
    var hearsChanges: Bool { get }

    /// Keeps hearing other processes' changes (see ``observeChanges(_:)``) for at least `duration`
    /// from now: whoever is about to wait for them says so first (an idle engine, a waiting
    /// handle). A store whose way of hearing them costs work at every commit (PostgreSQL's `LISTEN`
    /// connection: the server wakes it, and this process, for each notification) hears them only
    /// while asked, and stops once nobody asked for that long; a file watch costs nothing idle and
    /// ignores it.
    func keepHearingChanges(for duration: Duration)

    /// The directory that holds the store's file: the base `{queue}` of stored paths (see
    /// ``FileBases``); nil for a store on a server.
    var directory: String? { get }

    /// This process paused (``JobQueue/pauseInThisProcess(gracePeriod:)``) or resumed. While
    /// paused, a store holds nothing another process or the system could find held between calls:
    /// the SQLite store closes its file (a suspended app that holds a lock on a file in a shared
    /// container is killed) and opens it for each call only. A store whose connections hold no such
    /// thing (sockets to a server) may change nothing.
    func setPaused(_ paused: Bool) async

    // MARK: Schedules

    /// Unpaused schedules whose next tick is due by `now`.
    func dueSchedules(now: Int64) async throws -> [ScheduleRecord]

    // MARK: The application's transaction

    /// Runs `body` in one write transaction with what the application may do in it (its own SQL,
    /// job inserts, at `now`): commits if it returns, rolls back if it throws. `body` is
    /// synchronous and runs while the transaction holds the store.
    func transaction<T: Sendable>(now: Int64, _ body: @escaping @Sendable (any AppTransaction, Int64) throws -> T) async throws -> T
}

/// What one claim asks for: which jobs a worker may take, and how many.
package struct ClaimRequest: Sendable, Hashable {
    /// The worker, named in the leases and the history.
    package var owner: String
    /// How long the lease holds without a heartbeat, in milliseconds.
    package var leaseDuration: Int64
    /// The time of the claim.
    package var now: Int64
    /// The most jobs to claim over every queue; 0 only promotes due scheduled jobs.
    package var room: Int
    /// Only jobs of these kinds, each at the versions the worker runs (``RunnableKinds/runs(kind:version:)``).
    package var kinds: RunnableKinds
    /// Only jobs of these queues; nil for every queue.
    package var queues: Set<String>?
    /// Where the walk over the queues (by name) starts, modulo their number: the worker moves it on
    /// at every claim so that a busy queue cannot starve the others.
    package var rotation: Int
    /// Jobs never to claim: those with an earlier attempt still running in the claiming process.
    package var excluding: Set<JobID>
    /// Queues not to claim from now, even if ``queues`` has them (their network requirement is not met).
    package var excludedQueues: Set<String> = []

    /// The same claim at `now`: the time its transaction read once it held its locks.
    package func at(_ now: Int64) -> ClaimRequest {
        var request = self
        request.now = now
        return request
    }

    /// Whether the claim takes jobs of `queue`: one of ``queues`` (or any), and not excluded. The
    /// rule both stores apply to the queues they read.
    package func takes(queue: String) -> Bool {
        (queues?.contains(queue) ?? true) && !excludedQueues.contains(queue)
    }

    package init(
        owner: String, leaseDuration: Int64, now: Int64, room: Int, kinds: RunnableKinds, queues: Set<String>? = nil,
        rotation: Int = 0, excluding: Set<JobID> = []
    ) {
        self.owner = owner
        self.leaseDuration = leaseDuration
        self.now = now
        self.room = room
        self.kinds = kinds
        self.queues = queues
        self.rotation = rotation
        self.excluding = excluding
    }
}

/// What ``JobStore/finish(_:now:thenClaim:)`` did.
package struct FinishResult: Sendable, Hashable {
    /// The state each reported job is now in; jobs whose ending was discarded are absent.
    package var states: [JobID: JobState]
    /// The jobs claimed after the endings were recorded.
    package var claimed: [ClaimedJob]

    package init(states: [JobID: JobState], claimed: [ClaimedJob]) {
        self.states = states
        self.claimed = claimed
    }
}

/// A job's state and saved progress.
package struct JobStatus: Sendable, Hashable {
    package var state: JobState
    package var progress: Double?

    package init(state: JobState, progress: Double?) {
        self.state = state
        self.progress = progress
    }
}

extension JobStore {
    /// Swift's default executor: a store's calls hop to wherever they complete.
    package var preferredTaskExecutor: (any TaskExecutor)? { nil }

    /// Nothing: the store hears other processes' changes whether asked or not.
    package func keepHearingChanges(for duration: Duration) {}
}
