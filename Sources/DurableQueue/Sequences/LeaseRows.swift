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
}

/// Every row operation of the core's sequences: what a store implements for them (see
/// ``JobStore/runSequence(_:now:_:)``).
package protocol StoreRows: EndingRows, LeaseRows {}
