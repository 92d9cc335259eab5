/// What a store gives to read, and nothing that writes: the jobs, their history, queues, groups,
/// schedules, cache entries and the change token.
///
/// ``JobStore`` refines it with every write, as GRDB's `DatabaseWriter` refines its
/// `DatabaseReader`. Code outside the core that only looks — the `durableq` read commands, the
/// dashboard, the HTTP jobs' bookkeeping — takes a reader (`JobQueue.reader`), never the store.
package protocol JobStoreReader: AnyObject, Sendable {
    /// What the store is, for messages: the file's path, or the database's address.
    var location: String { get }

    /// The workers holding running jobs, each once.
    func leaseOwners() async throws -> [String]

    /// When a claim may next find work: the earliest scheduled job or throttled queue after `now`.
    func nextWakeTime(after now: Int64) async throws -> Int64?

    /// A number that changes whenever another process commits to the store, cheap to read: an idle
    /// engine polls it and claims only when it moved.
    func changeToken() async throws -> Int64

    /// A queue's stored settings; nil for a queue the store does not have.
    func queue(named name: String) async throws -> QueueConfiguration?

    /// Every queue's settings, job counts and next allowed start.
    func queueStatuses() async throws -> [QueueStatus]

    /// The unfinished jobs of queue `name` by partition key (the unkeyed ones first), each state
    /// counted through its own index.
    func keyCounts(queue name: String) async throws -> [KeyCounts]

    /// Every queue's name, sorted: a short read that counts no jobs.
    func queueNames() async throws -> [String]

    /// The aging rule of every queue with ``Aging``.
    func agingRules() async throws -> [AgingRule]

    /// Every schedule (or only the one named), by name, with the state of the job it enqueued last.
    func schedules(named name: String?) async throws -> [ScheduleRecord]

    /// When the earliest unpaused schedule's next tick is due; nil if none ticks.
    func nextScheduleTick() async throws -> Int64?

    /// The earliest deadline a recovery enforces: a wait for a signal's timeout or a hand-off's
    /// deadline; nil if none is set.
    func nextDeadline() async throws -> Int64?

    /// A key's entry; nil if never requested or reset.
    func cacheEntry(namespace: String, key: String) async throws -> CacheEntryRecord?

    /// Job `id` with its tags.
    func job(_ id: JobID) async throws -> JobRecord

    /// Job `id`'s state and progress: a short read for handles.
    func status(of id: JobID) async throws -> JobStatus

    /// Job `id`'s events, oldest first.
    func history(of id: JobID) async throws -> [JobEvent]

    /// The steps job `id` recorded, in the order they were recorded.
    func steps(of id: JobID) async throws -> [StepRecord]

    /// The dependencies of job `id` (``Dependency``), by name, with the outcome of those whose job ended.
    func dependencies(of id: JobID) async throws -> [DependencyRecord]

    /// The history rows since `since`, with their jobs' queues and creations, for the activity
    /// charts (``QueueActivity``): those of the `jobLimit` jobs that finished last since then, and
    /// of at most `jobLimit` unfinished jobs.
    func recentEvents(since: Int64, jobLimit: Int) async throws -> [ActivityEvent]

    /// Each queue's earliest due time (`run_at`) of a pending job.
    func oldestDue() async throws -> [String: Int64]

    /// The jobs `filter` matches.
    func jobs(_ filter: JobFilter) async throws -> [JobRecord]

    /// How many jobs `filter` matches (its limit aside).
    func count(_ filter: JobFilter) async throws -> Int

    /// How many jobs wait (scheduled, pending, blocked) in each queue.
    func waitingJobCounts() async throws -> [String: Int]

    /// How many jobs wait (pending or scheduled) of each kind and version, in each queue.
    func waitingJobsByKind() async throws -> [QueuedKindVersion: Int]

    /// The job types running workers wrote that they run (see ``WorkerPresence``), stale ones
    /// included.
    func workerKinds() async throws -> [WorkerKindRecord]

    /// A group's state.
    func groupState(_ id: GroupID) async throws -> JobState

    /// A group with every child's state and output.
    func groupResult(_ id: GroupID) async throws -> GroupResult

    /// The newest `limit` outermost sequences and groups, newest first.
    func groups(limit: Int) async throws -> [GroupSummary]
}
