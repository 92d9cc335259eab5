/// A job that recovery takes back, as its row reads: a running job whose lease expired (or whose
/// worker is gone), or a handed-off job whose hand-off passed its deadline.
package struct RecoverableJob: Sendable {
    package var lease: ExpiredLease
    package var queue: String
    package var kind: String
    /// The job's throttle interval (milliseconds; 0: none) and partition key, for the throttles
    /// measured from an attempt's end.
    package var throttleInterval: Int64
    package var partitionKey: String?
    /// The group it is a child of, if any.
    package var group: GroupID?

    package init(lease: ExpiredLease, queue: String, kind: String, throttleInterval: Int64, partitionKey: String?, group: GroupID?) {
        self.lease = lease
        self.queue = queue
        self.kind = kind
        self.throttleInterval = throttleInterval
        self.partitionKey = partitionKey
        self.group = group
    }
}

/// A running attempt given back uncounted, as its row reads after: for the throttles and what
/// depends on the job if the give-back ended it.
package struct GivenBack: Sendable {
    /// `pending`, or `cancelled` when a cancel was requested (``GiveBack``).
    package var state: JobState
    package var queue: String
    package var throttleInterval: Int64
    package var partitionKey: String?
    package var group: GroupID?

    package init(state: JobState, queue: String, throttleInterval: Int64, partitionKey: String?, group: GroupID?) {
        self.state = state
        self.queue = queue
        self.throttleInterval = throttleInterval
        self.partitionKey = partitionKey
        self.group = group
    }
}

/// The row operations that ``LeaseSequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol LeaseRows: Sendable {
    /// Running jobs whose lease expired before `now` or whose worker is one of `deadOwners`, in id
    /// order, their rows locked where the store locks rows (rows another transaction holds are
    /// left for the next round).
    func expiredLeases(now: Int64, deadOwners: [String]) async throws -> [RecoverableJob]
    /// Handed-off jobs whose hand-off deadline is before `now`, in id order, locked likewise.
    func passedHandOffDeadlines(now: Int64) async throws -> [RecoverableJob]
    /// Writes recovery's `verdict` on `job` (its state, error and count of attempts lost in a row,
    /// its lease cleared; finished if the state is terminal), with its history row.
    func recordRecovery(of job: RecoverableJob, _ verdict: ExpiredLease.Verdict, now: Int64) async throws
    /// Notes that an attempt of `queue` ended at `now`, for the throttles measured from an end: the
    /// queue's (`interval` > 0) and the one of `key`, if its key keeps a gap after each end.
    func recordEnd(queue: String, interval: Int64, key: String?, now: Int64) async throws
    /// Forgets the workers silent since before `cutoff`; a store that keeps no worker rows does nothing.
    func forgetWorkers(silentSince cutoff: Int64) async throws

    /// Gives `attempt`, which `owner` runs, back uncounted: the job `pending` again, or `cancelled`
    /// if a cancel was requested (``GiveBack``), its attempt number taken back with a checkpoint
    /// that attempt saved, its lease cleared, with its history row (`reason`); nil if the row no
    /// longer shows that attempt running under `owner`.
    func giveBack(_ attempt: AttemptID, owner: String, now: Int64, reason: String) async throws -> GivenBack?
    /// Gives handed-off `attempt` back to `pending`, due at `now`, marked as an attempt that does
    /// not count against the job's limit (its number is kept: a late report for it is refused), with
    /// its history row; false if the row no longer shows that attempt handed off.
    func giveBackHandOff(_ attempt: AttemptID, now: Int64, reason: String) async throws -> Bool
}

/// Every row operation of the core's sequences: what a store implements for them (see
/// ``JobStore/runSequence(_:now:notifying:_:)``).
package protocol StoreRows:
    EndingRows, LeaseRows, RetryRows, CancelRows, SignalRows, HandOffRows, DependencyRows, CacheRows, QueueRows, ScheduleRows,
    AgingRows, PruneRows, WorkerRows
{}
