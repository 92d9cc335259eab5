/// What a results-cache lookup answers: the one rule both stores apply in `cachedValue`.
package enum CacheRule {
    /// Checks a lookup's arguments before anything is read or written.
    ///
    /// - Throws: `invalidArgument` for a failure limit below 1, an invalid job, or a job with a
    ///   unique key (the cache key is one).
    package static func validate(job: NewJob, maxFailures: Int?) throws {
        if let maxFailures, maxFailures < 1 {
            throw DurableQueueError.invalidArgument("maxFailures", "\(maxFailures) is below 1; use nil for unlimited")
        }
        try job.validate()
        if job.uniqueKey != nil {
            throw DurableQueueError.invalidArgument("uniqueKey", "a cache's jobs cannot have a unique key: the cache key is one")
        }
    }

    /// The job a store must look at before deciding: the one an in-progress entry names (is it
    /// still unfinished?); nil when the entry alone decides.
    package static func jobToCheck(in entry: CacheEntryRecord?) -> JobID? {
        guard let entry, entry.state == .inProgress else { return nil }
        return entry.job
    }

    /// The answer for `entry` (nil: the key was never requested, or was reset), the job it names
    /// being unfinished or not (`computing`, read when ``jobToCheck(in:)`` named one), under a
    /// limit of `maxFailures`: the stored output, the job computing it, the failure that stays —
    /// or nil, and the store enqueues a new job for the key.
    package static func answer(for entry: CacheEntryRecord?, computing: Bool, maxFailures: Int?) -> CacheLookup? {
        guard let entry else { return nil }
        switch entry.state {
        case .complete:
            return .complete(output: entry.output ?? "null")
        case .inProgress:
            guard computing, let job = entry.job else { return nil }
            return .computing(job, enqueued: false)
        case .failed:
            guard let maxFailures, entry.failures >= maxFailures else { return nil }
            return .failed(entry.error, failures: entry.failures)
        }
    }

    /// What a cache entry records once the job computing it ended in `state` with `output` and
    /// `error` (JSON text): the value when it succeeded; otherwise a failure that counts against
    /// the key's limit, the job's own error or, for a job cancelled without one, a `Cancelled` error.
    package static func outcome(jobState state: JobState, output: String?, error: String?) throws
        -> (state: CacheEntryRecord.State, output: String?, error: String?, countsFailure: Bool)
    {
        if state == .succeeded { return (.complete, output, nil, false) }
        let failure = try error ?? JobCodec.encode(JobFailure(type: "Cancelled", message: "the job was cancelled", retryable: false))
        return (.failed, nil, failure, true)
    }
}
