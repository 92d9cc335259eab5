extension JobQueue {
    /// Reports on attempts handed off to a carrier, from any process (see ``HandOffs``).
    public var handOffs: HandOffs { HandOffs(jobQueue: self) }

    /// Attempts handed off to a carrier (a system download, another service; see
    /// ``JobContext/handOff(to:reference:deadline:start:)``): the carrier's reports, from any
    /// process, and the reconciliation of the registered carriers with the store.
    ///
    /// For example:
    /// ```swift
    /// try await queue.handOffs.complete(job: id, attempt: attempt, output: savedPath)
    /// ```
    public struct HandOffs: Sendable {
        let jobQueue: JobQueue
    }
}

extension JobQueue.HandOffs {
    /// Reconciles every registered carrier with the store: a handed-off job whose transfer its
    /// carrier no longer knows (lost with the process or the system's session) goes back to
    /// `pending` without counting the attempt, and a transfer carried for a job no longer handed
    /// off (cancelled, past its deadline, finished) is stopped. ``run()`` and drains do this when
    /// they start; call it when the system hands the app its background session's events.
    ///
    /// - Throws: A storage error.
    @discardableResult
    public func reconcile() async throws -> HandOffReconciliation {
        try await jobQueue.engine.reconcileHandOffs()
    }

    /// Records that handed-off attempt `attempt` of job `job` succeeded with `output`, from any
    /// process: the carrier's report (see ``JobContext/handOff(to:reference:deadline:start:)``).
    ///
    /// Fenced by the attempt: if the job no longer shows that attempt handed off (it was cancelled,
    /// passed its deadline, was given back or ran again), nothing changes but a note in its history,
    /// and the result is ``HandOffCompletion/refused(state:attempt:)``. A cancel requested first wins.
    ///
    /// - Parameters:
    ///   - job: The handed-off job.
    ///   - attempt: The attempt that was handed off (``JobContext/attempt`` at the hand-off).
    ///   - output: The job type's output; paths in it are stored as a handler's are (see
    ///     ``StoresFilePaths``).
    /// - Throws: `jobNotFound`, or a storage error.
    @discardableResult
    public func complete<Output: Encodable & Sendable>(job: JobID, attempt: Int, output: Output) async throws
        -> HandOffCompletion
    {
        let outcome = AttemptOutcome.succeeded(output: try jobQueue.files.storedJSON(output))
        return try await report(AttemptID(job: job, number: attempt), outcome)
    }

    /// Records that handed-off attempt `attempt` of job `job` failed with `error`, from any process.
    /// The job retries by its policy (its backoff, its attempts left) or fails, as after a failed
    /// attempt; fenced as ``complete(job:attempt:output:)`` is.
    ///
    /// - Parameters:
    ///   - job: The handed-off job.
    ///   - attempt: The attempt that was handed off.
    ///   - error: What went wrong: the job's error if it fails.
    ///   - retryable: Whether another attempt may help; nil (the default) asks the job type's
    ///     ``Job/shouldRetry(after:)`` if this process registered it, else retries.
    /// - Throws: `jobNotFound`, or a storage error.
    @discardableResult
    public func fail(job: JobID, attempt: Int, error: any Error, retryable: Bool? = nil) async throws -> HandOffCompletion {
        let record = try await jobQueue.store.job(job)
        let retries = retryable ?? jobQueue.registry.runner(for: record.kind)?.shouldRetry(after: error) ?? true
        let outcome = RetryRule.outcome(
            after: error, retryable: retries, attempt: attempt, progressedAttempts: 0, retryPolicy: record.retryPolicy)
        return try await report(AttemptID(job: job, number: attempt), outcome)
    }

    /// Saves a checkpoint (and progress) for handed-off attempt `attempt` of job `job`, from any
    /// process: what a later attempt resumes from if the transfer is lost. False if the job no
    /// longer shows that attempt handed off: nothing was saved.
    ///
    /// - Parameters:
    ///   - job: The handed-off job.
    ///   - attempt: The attempt that was handed off.
    ///   - checkpoint: The bytes the next attempt receives as ``JobContext/checkpoint``.
    ///   - progress: How far the carrier has come, 0…1; nil leaves the stored progress.
    /// - Throws: `invalidArgument` for progress outside 0…1, or a storage error.
    @discardableResult
    public func saveCheckpoint(job: JobID, attempt: Int, checkpoint: [UInt8], progress: Double? = nil) async throws -> Bool {
        let saved = try await jobQueue.store.saveProgress(
            AttemptID(job: job, number: attempt), owner: nil, progress: progress, checkpoint: checkpoint, now: jobQueue.now)
        if saved { jobQueue.jobChanges.signal() }
        return saved
    }

    /// Records a report from outside for a handed-off attempt, and tells whoever waits on the job.
    private func report(_ attempt: AttemptID, _ outcome: AttemptOutcome) async throws -> HandOffCompletion {
        let reporter = "outside (\(jobQueue.configuration.workerID))"
        let result = try await jobQueue.store.completeHandOff(attempt, outcome: outcome, reporter: reporter, now: jobQueue.now)
        jobQueue.jobChanges.signal()
        jobQueue.workArrived()
        return result
    }
}
