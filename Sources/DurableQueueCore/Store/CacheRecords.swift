/// A row of `cache_entries`.
package struct CacheEntryRecord: Sendable, Hashable {
    package enum State: String, Sendable {
        case inProgress, complete, failed
    }

    package var state: State
    package var job: JobID?
    /// The output (JSON text) once complete.
    package var output: String?
    package var error: JobFailure?
    package var failures: Int

    package init(state: State, job: JobID?, output: String?, error: JobFailure?, failures: Int) {
        self.state = state
        self.job = job
        self.output = output
        self.error = error
        self.failures = failures
    }
}

/// What a cache lookup found or did.
package enum CacheLookup: Sendable, Hashable {
    /// The key is complete: its stored output (JSON text).
    case complete(output: String)
    /// A job computes the key: the caller waits for it (`enqueued` when this lookup started it).
    case computing(JobID, enqueued: Bool)
    /// The key failed as often as allowed and stays failed until reset.
    case failed(JobFailure?, failures: Int)
}
