/// Which jobs a listing or count takes; every field left nil matches all.
package struct JobFilter: Sendable, Hashable {
    /// Which end of the id order a listing starts from.
    package enum Order: Sendable, Hashable {
        case newestFirst
        case oldestFirst
    }

    /// Only jobs in these states.
    package var states: Set<JobState>?
    /// Only jobs of these queues.
    package var queues: Set<String>?
    /// Only jobs of these kinds.
    package var kinds: Set<String>?
    /// Only jobs a worker that runs these kinds at these versions would claim.
    package var runnable: RunnableKinds?
    /// Only jobs with this tag.
    package var tag: String?
    /// Only jobs whose id is this text, or whose kind, unique key, a tag or input contains it
    /// (ignoring ASCII case): a search box's words.
    package var search: String?
    /// Only jobs whose stored error (``JobFailure``) has this type, such as
    /// ``LostAttempts/poisonFailureType``.
    package var failureType: String?
    /// Only jobs whose stored error's type or message contains this text (ignoring ASCII case).
    package var errorText: String?
    /// Only jobs created at or after this time (ms since 1970).
    package var createdFrom: Int64?
    /// Only jobs created before this time (ms since 1970).
    package var createdBefore: Int64?
    /// Only jobs whose id is above this one (a listing's next page, oldest first).
    package var afterID: JobID?
    /// At most this many jobs (listings only).
    package var limit: Int
    package var order: Order

    package init(
        states: Set<JobState>? = nil, queues: Set<String>? = nil, kinds: Set<String>? = nil, tag: String? = nil,
        search: String? = nil, failureType: String? = nil, limit: Int = 100, order: Order = .newestFirst
    ) {
        self.states = states
        self.queues = queues
        self.kinds = kinds
        self.tag = tag
        self.search = search
        self.failureType = failureType
        self.limit = limit
        self.order = order
    }

    /// Jobs in `state` (any if nil) of `queue` (any if nil) with `tag` (any if nil), newest first.
    package init(state: JobState? = nil, queue: String? = nil, tag: String? = nil, limit: Int = 100) {
        self.init(states: state.map { [$0] }, queues: queue.map { [$0] }, tag: tag, limit: limit)
    }

    /// The pending jobs of `queues` (every queue if nil) that a worker running `kinds` would claim.
    package static func pending(in queues: Set<String>?, runnableBy kinds: RunnableKinds) -> JobFilter {
        var filter = JobFilter(states: [.pending], queues: queues)
        filter.runnable = kinds
        return filter
    }

    /// The jobs that failed as poison jobs (``LostAttempts``), newest first.
    package static func poisoned(limit: Int = 100) -> JobFilter {
        JobFilter(states: [.failed], failureType: LostAttempts.poisonFailureType, limit: limit)
    }

    /// The states of a job that has not finished and will without anyone's help: a parked job
    /// (``JobState/parked``) waits for a person's `retry` or `cancel`, and is not among them.
    package static let unfinished: Set<JobState> = [.scheduled, .pending, .blocked, .running, .handedOff, .waiting]
}
