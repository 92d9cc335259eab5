extension JobStore {
    /// ``runSequence(_:now:notifying:_:)`` of a change that may concern workers of other processes.
    package func runSequence<T: Sendable>(
        _ operation: String, now: Int64, _ body: @escaping @Sendable (any StoreRows, Int64) async throws -> T
    ) async throws -> T {
        try await runSequence(operation, now: now, notifying: true, body)
    }
}

extension JobStore {
    /// Inserts a sequence or group with every job and nested group in it, and starts it, in one
    /// transaction.
    ///
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func enqueue(composition root: CompositionNode, now: Int64) async throws -> GroupID {
        guard case .group = root else {
            throw DurableQueueError.invalidArgument("composition", "the outermost step must be a sequence or a group")
        }
        try root.validate()
        return try await runSequence("enqueue a sequence or group", now: now) { rows, now in
            try await GroupSequences.enqueue(root, in: rows, now: now)
        }
    }

    /// Cancels a sequence or group and everything unfinished in it, in one transaction: waiting
    /// jobs at once, running ones through their cancel flag.
    ///
    /// - Returns: false if the group had finished (nothing changed).
    /// - Throws: `groupNotFound`.
    package func cancel(group id: GroupID, now: Int64) async throws -> Bool {
        try await runSequence("cancel group \(id)", now: now) { rows, now in
            try await GroupSequences.cancel(group: id, in: rows, now: now)
        }
    }

    /// Puts back the children of finished group `id` that ``GroupRetry`` names and runs the group
    /// again, in one transaction.
    ///
    /// - Returns: The children changed, with their states after.
    /// - Throws: `groupNotFound`; what ``GroupRetry`` throws. Nothing changes when it throws.
    package func retryFailed(group id: GroupID, downstream: Bool, now: Int64) async throws -> [JobID: JobState] {
        try await runSequence("retry the failed jobs of group \(id)", now: now) { rows, now in
            try await GroupSequences.retryFailed(group: id, downstream: downstream, in: rows, now: now)
        }
    }
}

extension JobStore {
    /// Takes back running jobs whose lease expired before `now`, or whose worker is one of
    /// `deadOwners`, and handed-off jobs whose hand-off passed its deadline, in one transaction: to
    /// `pending` (the attempt counts), `cancelled` or `failed`
    /// (``ExpiredLease/verdict(deadOwners:lostAttemptLimit:)``), storing each job's attempts lost in a
    /// row (``LostAttempts``); see ``LeaseSequences``.
    package func recoverExpiredLeases(now: Int64, deadOwners: [String], lostAttemptLimit: Int?) async throws -> [RecoveredJob] {
        try await runSequence("recover jobs with expired leases", now: now) { rows, now in
            try await LeaseSequences.recoverExpiredLeases(now: now, deadOwners: deadOwners, lostAttemptLimit: lostAttemptLimit, in: rows)
        }
    }

    /// Gives running attempts back without counting them (a shutdown, or an attempt whose lease
    /// expired before its handler started), in one transaction; see ``LeaseSequences/release(_:owner:now:reason:in:)``.
    ///
    /// - Returns: The attempts released; one that `owner` no longer holds is left alone.
    package func release(_ attempts: [AttemptID], owner: String, now: Int64, reason: String) async throws -> [AttemptID] {
        try await runSequence("release \(attempts.count) job(s) of worker '\(owner)'", now: now) { rows, now in
            try await LeaseSequences.release(attempts, owner: owner, now: now, reason: reason, in: rows)
        }
    }

    /// Gives handed-off attempts whose transfer was lost back to `pending` without counting them
    /// (each with `reason` in its history), in one transaction; an attempt the row no longer shows
    /// handed off is left alone.
    ///
    /// - Returns: The attempts given back.
    package func giveBackHandOffs(_ attempts: [AttemptID], reason: String, now: Int64) async throws -> [AttemptID] {
        try await runSequence("give back \(attempts.count) handed-off job(s)", now: now) { rows, now in
            try await LeaseSequences.giveBackHandOffs(attempts, reason: reason, now: now, in: rows)
        }
    }

    /// Puts a `failed` or `cancelled` job back to `pending` with a fresh set of attempts, keeping its
    /// checkpoint (so a download resumes) and recording the change in its history.
    ///
    /// - Throws: `jobNotFound` when no job has that id; `invalidArgument` when the job has not
    ///   failed or been cancelled, belongs to a sequence or group, or another unfinished job holds
    ///   its unique key. Nothing changes when it throws.
    package func retry(_ id: JobID, now: Int64) async throws {
        try await runSequence("retry job \(id)", now: now) { rows, now in try await RetrySequences.retry(id, via: nil, in: rows, now: now) }
    }

    /// Retries the failed jobs of the dependency graph of job `id`, and with `downstream` makes the
    /// jobs their failure cancelled wait again (``GraphRetry``), in one transaction.
    ///
    /// - Returns: Each job changed, with its new state.
    /// - Throws: `jobNotFound`; `invalidArgument` when a failed job may not be retried by hand or the
    ///   graph has more than ``GraphRetry/maximumJobs`` jobs. Nothing changes when it throws.
    package func retryFailed(inGraphOf id: JobID, downstream: Bool, now: Int64) async throws -> [JobID: JobState] {
        try await runSequence("retry the failed jobs of the graph of job \(id)", now: now) { rows, now in
            try await RetrySequences.retryFailed(inGraphOf: id, downstream: downstream, in: rows, now: now)
        }
    }

    /// Applies a bulk `action` to each of `ids` it still applies to, in one transaction
    /// (``BulkSequences/apply(_:to:reason:in:now:)``).
    ///
    /// - Returns: Each job changed, with its state after (running: a cancel was requested; for a
    ///   delete, the state it had finished in).
    package func apply(_ action: BulkAction, to ids: [JobID], reason: String, now: Int64) async throws -> [JobID: JobState] {
        try await runSequence("\(action.rawValue) \(ids.count) job(s)", now: now) { rows, now in
            try await BulkSequences.apply(action, to: ids, reason: reason, in: rows, now: now)
        }
    }

    /// Cancels job `id`, in one transaction: a waiting job becomes `cancelled` now; a running one
    /// gets its durable cancel flag, and never runs again whatever happens to its worker.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func cancel(_ id: JobID, now: Int64) async throws -> CancelOutcome {
        try await runSequence("cancel job \(id)", now: now) { rows, now in
            try await CancelSequences.requestCancel(id, reason: CancelSequences.requestedReason, in: rows, now: now)
        }
    }

    /// Waits running `attempt`, which `owner` runs, for signal `name`, in one transaction: when the
    /// job has that signal, records it as the wait's step (``SignalRule/stepName(_:)``) and returns
    /// it; else the attempt ends without counting and the job waits (`waiting`, with `name` and its
    /// deadline in its row: `timeout` milliseconds after the transaction's time, the wait's history
    /// row's, or never for nil), or is `cancelled` if a cancel was requested first. Nil (nothing
    /// written) if the row no longer shows `attempt` running under `owner`.
    package func waitForSignal(_ attempt: AttemptID, owner: String, name: String, timeout: Int64?, now: Int64) async throws
        -> SignalWait?
    {
        try await runSequence("wait for signal '\(name)' in job \(attempt.job)", now: now) { rows, now in
            try await SignalSequences.waitForSignal(attempt, owner: owner, name: name, timeout: timeout, in: rows, now: now)
        }
    }

    /// Sends signal `name` with `payload` (JSON text) to job `job`, as ``SignalRule/delivery(state:waitingFor:name:alreadySent:)``
    /// says, in one transaction: kept (a signal per job and name), and a job waiting for it made `pending`.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func signal(_ job: JobID, name: String, payload: String, now: Int64) async throws -> SignalResult {
        try await runSequence("signal '\(name)' to job \(job)", now: now) { rows, now in
            try await SignalSequences.signal(job, name: name, payload: payload, in: rows, now: now)
        }
    }

    /// Ends the waits whose deadline is before `now`, in one transaction: each records its timeout
    /// as the wait's step and its job becomes `pending`. Returns those jobs.
    package func endPassedWaits(now: Int64) async throws -> [JobID] {
        try await runSequence("end the waits past their deadline", now: now) { rows, now in
            try await SignalSequences.endPassedWaits(in: rows, now: now)
        }
    }

    /// Hands `attempt`, which `owner` runs, to a carrier outside the process, in one transaction:
    /// the job becomes `handed_off` (no lease, its attempt number kept) with `request` in its row
    /// (its deadline counted from the transaction's time, the hand-off's history row's), or
    /// `cancelled` if a cancel was requested first. Returns that state; nil if `owner` no longer
    /// holds the attempt.
    package func handOff(_ attempt: AttemptID, owner: String, to request: HandOffRequest, now: Int64) async throws -> JobState? {
        try await runSequence("hand job \(attempt.job) off to '\(request.carrier)'", now: now) { rows, now in
            try await HandOffSequences.handOff(attempt, owner: owner, to: request, in: rows, now: now)
        }
    }

    /// Ends handed-off `attempt` as `outcome` says, by the rule of every ending (``ResolvedEnding``),
    /// in one transaction, fenced by the attempt: a report for an attempt the row no longer shows
    /// handed off is refused and noted in the history. `reporter` is the history's worker.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func completeHandOff(_ attempt: AttemptID, outcome: AttemptOutcome, reporter: String, now: Int64) async throws
        -> HandOffCompletion
    {
        try await runSequence("record the end of handed-off job \(attempt.job)", now: now) { rows, now in
            try await HandOffSequences.completeHandOff(attempt, outcome: outcome, reporter: reporter, in: rows, now: now)
        }
    }

    /// The stored value of `key` in `namespace`, the job computing it, or a new job `job` enqueued
    /// for it, in one transaction (``CacheSequences/cachedValue(namespace:key:job:maxFailures:in:now:)``).
    ///
    /// - Parameter maxFailures: How many failed computations a key allows before it stays failed
    ///   until reset; nil for unlimited.
    /// - Throws: `invalidArgument` (``CacheRule/validate(job:maxFailures:)``) before anything changed.
    package func cachedValue(namespace: String, key: String, job: NewJob, maxFailures: Int?, now: Int64) async throws -> CacheLookup {
        try CacheRule.validate(job: job, maxFailures: maxFailures)
        return try await runSequence("look up cache key '\(key)' in '\(namespace)'", now: now) { rows, now in
            try await CacheSequences.cachedValue(namespace: namespace, key: key, job: job, maxFailures: maxFailures, in: rows, now: now)
        }
    }
}

extension JobStore {
    /// Creates or updates a queue's settings, shared by every process on the store, in one
    /// transaction; see ``QueueSequences/configure(_:in:now:)``.
    ///
    /// Every setting is replaced except `isPaused`, which applies only when the queue is created:
    /// an existing queue stays suspended or not (see ``setSuspended(_:queue:now:)``).
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func configure(_ queue: QueueConfiguration, now: Int64) async throws {
        try queue.validate()
        try await runSequence("configure queue '\(queue.name)'", now: now) { rows, now in
            try await QueueSequences.configure(queue, in: rows, now: now)
        }
    }

    /// Changes some settings of queue `name` (created with the defaults if it has no row), leaving
    /// the others as they are, in one transaction: `change` gets the current settings.
    ///
    /// - Returns: The settings now in force.
    /// - Throws: `invalidArgument` if `change` renames the queue or leaves a setting out of range
    ///   (nothing changed), or a storage error.
    package func updateQueue(
        named name: String, now: Int64, _ change: @escaping @Sendable (inout QueueConfiguration) -> Void
    ) async throws -> QueueConfiguration {
        try await runSequence("update queue '\(name)'", now: now) { rows, now in
            try await QueueSequences.update(name, in: rows, now: now, change)
        }
    }

    /// Suspends (`true`) or resumes a queue: running jobs finish, nothing new starts while suspended.
    ///
    /// - Throws: `invalidArgument` when no such queue exists.
    package func setSuspended(_ suspended: Bool, queue: String, now: Int64) async throws {
        try await runSequence("\(suspended ? "suspend" : "resume") queue '\(queue)'", now: now) { rows, now in
            try await QueueSequences.suspend(suspended, queue: queue, in: rows, now: now)
        }
    }
}

extension JobStore {
    /// Creates schedule `schedule.name`, or replaces its job and rule. An existing schedule keeps
    /// its pause, its last tick and, unless its rule's timing changed, its next tick (so that
    /// saving the same schedule at every start neither loses nor repeats a tick).
    ///
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func saveSchedule(_ schedule: ScheduleRecord, now: Int64) async throws {
        try schedule.job.validate()
        try await runSequence("save schedule '\(schedule.name)'", now: now) { rows, now in
            try await rows.saveScheduleRow(schedule, now: now)
        }
    }

    /// Deletes a schedule; false if there was none. The jobs it enqueued stay.
    package func deleteSchedule(named name: String, now: Int64) async throws -> Bool {
        try await runSequence("delete schedule '\(name)'", now: now) { rows, _ in try await rows.deleteScheduleRow(named: name) }
    }

    /// Pauses or resumes a schedule; resuming a paused one sets its next tick to `nextTickAt`
    /// (ticks that passed while paused do not fire). False if there is no such schedule.
    package func setSchedulePaused(_ paused: Bool, named name: String, nextTickAt: Int64?, now: Int64) async throws -> Bool {
        try await runSequence("\(paused ? "pause" : "resume") schedule '\(name)'", now: now) { rows, now in
            try await rows.markSchedulePaused(paused, named: name, nextTickAt: nextTickAt, now: now)
        }
    }

    /// Moves schedule `name`'s next tick from `due` to `nextTickAt` and enqueues `jobs`, in one
    /// transaction; see ``ScheduleSequences/fire(named:due:nextTickAt:jobs:in:now:)``. This is what
    /// makes a tick enqueue exactly one job however many processes fire it.
    ///
    /// - Returns: nil when another process fired the tick or the schedule changed.
    package func fireSchedule(named name: String, due: Int64, nextTickAt: Int64?, jobs: [(tick: Int64, job: NewJob)], now: Int64)
        async throws -> [EnqueueOutcome]?
    {
        for (_, job) in jobs { try job.validate() }
        return try await runSequence("enqueue the jobs of schedule '\(name)'", now: now) { rows, now in
            try await ScheduleSequences.fire(named: name, due: due, nextTickAt: nextTickAt, jobs: jobs, in: rows, now: now)
        }
    }
}

extension JobStore {
    /// Raises by one the priority of every pending job of a queue with ``Aging`` that has waited
    /// its interval since it became pending or last rose (by `updated_at`), up to the queue's
    /// limit, each with a history row; see ``AgingSequences``.
    ///
    /// - Returns: How many rose, or nil when no queue ages (then, after a read, nothing is written).
    package func ageWaitingJobs(now: Int64) async throws -> Int? {
        let rules = try await agingRules()
        guard !rules.isEmpty else { return nil }
        return try await runSequence("age waiting jobs", now: now) { rows, now in try await AgingSequences.age(rules, in: rows, now: now) }
    }
}

extension JobStore {
    /// Forgets `key` (or, with nil, every key) of `namespace` (or, with nil, of every namespace), so
    /// the next request computes anew. A computation in progress runs on; its result is not stored.
    ///
    /// - Returns: How many entries were removed.
    @discardableResult
    package func resetCache(namespace: String?, key: String?, now: Int64) async throws -> Int {
        try await runSequence("reset cache entries", now: now) { rows, _ in try await rows.deleteCacheEntries(namespace: namespace, key: key) }
    }
}

extension JobStore {
    /// Deletes up to `limit` jobs (and outermost groups) that finished in `state` before
    /// `finishedBefore`, and up to `limit` `deleted_jobs` lines of jobs deleted by hand in `state`
    /// before it, oldest first; a job of a group still under way stays. Nobody is told: no worker
    /// waits for a deletion.
    ///
    /// - Returns: How many rows went.
    /// - Throws: `invalidArgument` for a state that is not finished or a limit that is not positive.
    package func prune(state: JobState, finishedBefore: Int64, limit: Int, now: Int64) async throws -> Int {
        guard state.isTerminal else {
            throw DurableQueueError.invalidArgument("state", "only finished jobs can be pruned, not '\(state.rawValue)' ones")
        }
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        return try await runSequence("prune \(state.rawValue) jobs", now: now, notifying: false) { rows, _ in
            let jobs = try await rows.deleteFinishedJobs(in: state, finishedBefore: finishedBefore, limit: limit)
            let groups = try await rows.deleteFinishedGroups(in: state, finishedBefore: finishedBefore, limit: limit)
            return try await jobs + groups + rows.deleteDeletionLines(of: state, deletedBefore: finishedBefore, limit: limit)
        }
    }
}
