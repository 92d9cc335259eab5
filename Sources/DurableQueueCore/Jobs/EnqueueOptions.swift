import Foundation

/// Where, when and how a job runs; every property has a default.
///
/// For example:
/// ```swift
/// let options = EnqueueOptions(queue: "mail", priority: .high, delay: .seconds(30), tags: ["welcome"])
/// ```
public struct EnqueueOptions: Sendable {
    /// The named queue; created with default settings if nobody configured it. Default `"default"`.
    public var queue: String
    /// Higher runs first. nil (the default) means the priority of the job that enqueues this one
    /// (through ``JobContext/enqueue(_:_:options:)``) or of the sequence or group it is part of,
    /// and `.normal` for a job enqueued from outside any job.
    public var priority: Priority?
    /// Run no earlier than this long after enqueueing. Ignored when ``runAt`` is set.
    public var delay: Duration?
    /// Run no earlier than this time.
    public var runAt: Date?
    /// Attempts and backoff. Default: 3 attempts, exponential backoff.
    public var retry: RetryPolicy
    /// The longest one attempt may run; it is then cancelled and counts as a failed attempt.
    public var timeout: Duration?
    /// No other unfinished job may have this key; see ``uniquePolicy``.
    public var uniqueKey: String?
    /// What happens when an unfinished job already has ``uniqueKey``. Default `.keep`.
    public var uniquePolicy: UniquePolicy
    /// With ``uniqueKey`` and the `.keep` policy: also keep (and return) any job with the key that
    /// was enqueued less than this long ago, finished or not — at most one job per key per window
    /// ("send this digest at most once an hour"). nil: the key counts only while its job is unfinished.
    public var uniqueWindow: Duration?
    /// The partition the job belongs to ("customer-42", a host name): its queue's
    /// ``QueueConfiguration/partitionLimit`` caps how many jobs of one partition run at once.
    public var partitionKey: String?
    /// Labels to find and cancel jobs by.
    public var tags: [String]
    /// The least time after this job starts (or ends, per the queue's ``Throttle``) before the next
    /// job of its queue starts, instead of the queue's throttle interval. nil uses the queue's.
    public var throttleInterval: Duration?
    /// The jobs this one waits for, on any queues: it stays `blocked` until they have ended, then
    /// starts and reads their outputs by name; a dependency that fails cancels it unless its
    /// ``Dependency/onFailure`` says otherwise. Each must exist already (so no cycle can form).
    /// Default: none.
    public var dependsOn: [Dependency] = []

    /// Creates options; see each property for its default.
    public init(
        queue: String = "default", priority: Priority? = nil, delay: Duration? = nil, runAt: Date? = nil,
        retry: RetryPolicy = .default, timeout: Duration? = nil, uniqueKey: String? = nil,
        uniquePolicy: UniquePolicy = .keep, uniqueWindow: Duration? = nil, partitionKey: String? = nil, tags: [String] = [],
        throttleInterval: Duration? = nil
    ) {
        self.queue = queue
        self.priority = priority
        self.delay = delay
        self.runAt = runAt
        self.retry = retry
        self.timeout = timeout
        self.uniqueKey = uniqueKey
        self.uniquePolicy = uniquePolicy
        self.uniqueWindow = uniqueWindow
        self.partitionKey = partitionKey
        self.tags = tags
        self.throttleInterval = throttleInterval
    }

    /// The store's description of a job of `type` (its name and version) with `input`, enqueued at
    /// `now` (ms since 1970), with `inherited` as its priority unless the options set one, carrying
    /// `traceContext`.
    func newJob<J: Job>(
        _ type: J.Type, input: String, now: Int64, inheriting inherited: Priority? = nil, traceContext: String? = nil
    ) throws -> NewJob {
        var job = try newJob(kind: J.name, version: J.version, now: now, inheriting: inherited)
        job.input = input
        job.traceContext = traceContext
        return job
    }

    /// The store's description of jobs of `kind` at `version`, one per input, enqueued at `now` (ms
    /// since 1970); the options are checked and encoded once. Not generic over the job type: the
    /// inputs' loop is then compiled for the array it is given (generic, it cost a batch about 600
    /// instructions a job).
    func newJobs(kind: String, version: Int, inputs: [String], now: Int64, traceContext: String? = nil) throws -> [NewJob] {
        var template = try newJob(kind: kind, version: version, now: now, inheriting: nil)
        template.traceContext = traceContext
        return inputs.map { input in
            var job = template
            job.input = input
            return job
        }
    }

    private func newJob(kind: String, version: Int, now: Int64, inheriting inherited: Priority?) throws -> NewJob {
        if let delay, delay < .zero { throw DurableQueueError.invalidArgument("delay", "\(delay) is negative") }
        if let timeout, timeout <= .zero { throw DurableQueueError.invalidArgument("timeout", "\(timeout) is not positive") }
        let runAt = runAt.map(\.millisecondsSince1970) ?? delay.map { now + $0.milliseconds }
        return NewJob(
            queue: queue, kind: kind, version: version, input: "", priority: priority ?? inherited ?? .normal, runAt: runAt,
            maxAttempts: retry.maxAttempts,
            retryPolicy: try retry.backoff.storedJSON(), timeoutMilliseconds: timeout?.milliseconds,
            uniqueKey: uniqueKey, uniquePolicy: uniquePolicy, uniqueWindowMilliseconds: uniqueWindow?.milliseconds,
            partitionKey: partitionKey, tags: tags,
            throttleIntervalMilliseconds: throttleInterval?.milliseconds, dependencies: dependsOn)
    }
}
