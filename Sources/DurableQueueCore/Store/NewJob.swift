/// A job to insert, with every column the store fills from the caller.
package struct NewJob: Sendable, Hashable {
    /// The queue's name; the queue is created with default settings if nobody configured it.
    package var queue: String
    /// The registered job type's name.
    package var kind: String
    /// The version of the job type's input (``Job/version``) that wrote `input`.
    package var version: Int
    /// The input, encoded as JSON text.
    package var input: String
    /// Higher runs first.
    package var priority: Priority
    /// When the job is due, in milliseconds since 1970; nil means now.
    package var runAt: Int64?
    /// The most attempts allowed; nil means unlimited.
    package var maxAttempts: Int?
    /// The retry policy, encoded as JSON text; nil means the engine's default.
    package var retryPolicy: String?
    /// The time limit of one attempt in milliseconds; nil means none.
    package var timeoutMilliseconds: Int64?
    /// A key no other active job may share, under `uniquePolicy`.
    package var uniqueKey: String?
    /// What to do when an active job already has `uniqueKey`.
    package var uniquePolicy: UniquePolicy
    /// With `uniqueKey` and `keep`: a job with the key created less than this many milliseconds
    /// ago, finished or not, is kept instead of inserting this one; nil: only unfinished ones.
    package var uniqueWindowMilliseconds: Int64?
    /// The partition whose running jobs its queue's partition limit counts; nil for none.
    package var partitionKey: String?
    /// Labels to find or cancel the job by.
    package var tags: [String]
    /// The job's own throttle interval in milliseconds, kept after it instead of its queue's; nil
    /// means the queue's.
    package var throttleIntervalMilliseconds: Int64?
    /// The enqueuer's trace context (a tracer's injected fields, as JSON text), restored as the
    /// parent of each attempt's span; nil when no tracer recorded one.
    package var traceContext: String?
    /// The jobs it waits for (``Dependency``): it is `blocked` until they have ended.
    package var dependencies: [Dependency] = []

    /// Creates a job description; only the kind and input have no default.
    package init(
        queue: String = "default", kind: String, version: Int = 1, input: String, priority: Priority = .normal, runAt: Int64? = nil,
        maxAttempts: Int? = 3, retryPolicy: String? = nil, timeoutMilliseconds: Int64? = nil,
        uniqueKey: String? = nil, uniquePolicy: UniquePolicy = .keep, uniqueWindowMilliseconds: Int64? = nil,
        partitionKey: String? = nil, tags: [String] = [],
        throttleIntervalMilliseconds: Int64? = nil, traceContext: String? = nil, dependencies: [Dependency] = []
    ) {
        self.queue = queue
        self.kind = kind
        self.version = version
        self.input = input
        self.priority = priority
        self.runAt = runAt
        self.maxAttempts = maxAttempts
        self.retryPolicy = retryPolicy
        self.timeoutMilliseconds = timeoutMilliseconds
        self.uniqueKey = uniqueKey
        self.uniquePolicy = uniquePolicy
        self.uniqueWindowMilliseconds = uniqueWindowMilliseconds
        self.partitionKey = partitionKey
        self.tags = tags
        self.throttleIntervalMilliseconds = throttleIntervalMilliseconds
        self.traceContext = traceContext
        self.dependencies = dependencies
    }

    /// The state the job starts in at `now`: `blocked` while a group holds it (`inGroup`), else
    /// `scheduled` until its run time, else `pending`.
    package func initialState(inGroup: Bool = false, now: Int64) -> JobState {
        inGroup ? .blocked : (runAt ?? now) > now ? .scheduled : .pending
    }

    /// Throws `invalidArgument` naming the first field out of range.
    package func validate() throws {
        if queue.isEmpty { throw DurableQueueError.invalidArgument("queue", "the name must not be empty") }
        if kind.isEmpty { throw DurableQueueError.invalidArgument("kind", "the job type name must not be empty") }
        if version < 1 { throw DurableQueueError.invalidArgument("version", "\(version) is below 1") }
        if let maxAttempts, maxAttempts < 1 {
            throw DurableQueueError.invalidArgument("maxAttempts", "\(maxAttempts) is below 1; use nil for unlimited")
        }
        if let timeoutMilliseconds, timeoutMilliseconds < 1 {
            throw DurableQueueError.invalidArgument("timeout", "\(timeoutMilliseconds) ms is not positive")
        }
        if uniqueKey?.isEmpty == true { throw DurableQueueError.invalidArgument("uniqueKey", "must not be empty") }
        if partitionKey?.isEmpty == true { throw DurableQueueError.invalidArgument("partitionKey", "must not be empty") }
        if let uniqueWindowMilliseconds {
            guard uniqueWindowMilliseconds > 0 else {
                throw DurableQueueError.invalidArgument("uniqueWindow", "\(uniqueWindowMilliseconds) ms is not positive")
            }
            guard uniqueKey != nil, uniquePolicy == .keep else {
                throw DurableQueueError.invalidArgument("uniqueWindow", "needs a unique key and the keep policy")
            }
        }
        if let throttleIntervalMilliseconds, throttleIntervalMilliseconds < 0 {
            throw DurableQueueError.invalidArgument("throttleInterval", "\(throttleIntervalMilliseconds) ms is negative")
        }
        if tags.contains(where: \.isEmpty) { throw DurableQueueError.invalidArgument("tags", "a tag must not be empty") }
        try DependencyRule.validate(dependencies)
    }
}

/// What `enqueue` did.
package enum EnqueueOutcome: Sendable, Hashable {
    /// A new job was inserted.
    case inserted(JobID)
    /// An active job had the unique key and the policy was `keep`: that job is returned.
    case existing(JobID)
    /// An active job had the unique key and the policy was `replace`: it was cancelled (or asked to
    /// stop, if running) and a new job inserted.
    case replaced(JobID, replacing: JobID)

    /// The job the caller should follow: the new one, or the existing one kept.
    package var id: JobID {
        switch self {
        case .inserted(let id), .existing(let id), .replaced(let id, _): id
        }
    }
}
