/// One job type a running worker runs, and when the worker said so: a row of `worker_kinds`.
package struct WorkerKindRecord: Sendable, Hashable {
    /// The worker (``JobQueue/Configuration/workerID``).
    package var workerID: String
    /// The job type's name (``Job/name``).
    package var kind: String
    /// The versions of it the worker runs (``JobVersions/runs``).
    package var versions: ClosedRange<Int>
    /// When the worker's `run()` started.
    package var startedAt: Int64
    /// When the worker last wrote its rows.
    package var seenAt: Int64

    package init(workerID: String, kind: String, versions: ClosedRange<Int>, startedAt: Int64, seenAt: Int64) {
        self.workerID = workerID
        self.kind = kind
        self.versions = versions
        self.startedAt = startedAt
        self.seenAt = seenAt
    }
}
