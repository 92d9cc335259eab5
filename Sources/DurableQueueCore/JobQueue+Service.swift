import Foundation
import Logging
import ServiceLifecycle

extension JobQueue: Service {
    /// Runs jobs until graceful shutdown (or cancellation of the calling task).
    ///
    /// On start it recovers jobs whose worker died (expired leases, and with
    /// ``Configuration/recoverDeadLocalWorkers`` those of this host's processes that are gone). It then claims due jobs of
    /// every queue (or ``Configuration/queues``) within their limits, runs each as a child task,
    /// records every outcome before reporting it, renews leases by heartbeat, and prunes finished
    /// jobs per ``Retention``. It wakes at once for work enqueued here and within
    /// ``Configuration/pollInterval`` for work enqueued by other processes.
    ///
    /// On graceful shutdown (swift-service-lifecycle) it stops claiming, lets running jobs finish
    /// for up to ``Configuration/gracefulShutdownTimeout``, then stops the rest and gives them back
    /// to `pending` (recorded, without counting the attempt). Returning means it has stopped.
    ///
    /// If the file cannot be written for longer than ``Configuration/storageFailureTimeout`` (a full
    /// disk, I/O errors), or at once for an error no retry can fix, it stops every attempt at once and
    /// throws that error; what was committed stays, and the jobs left running are recovered when the
    /// file works again.
    ///
    /// - Throws: `invalidArgument` if this queue is already running; the storage error it stopped
    ///   for (`storage`, `databaseLocked`, `notADatabase`, `corrupt`, `readOnly`, `schemaTooNew`).
    public func run() async throws {
        try await engine.run()
    }

    /// Runs the jobs that are due now, one at a time in queue order, and returns when none is left
    /// (or `limit` attempts have run), instead of running the engine as a service.
    ///
    /// For a tool that works through what is due and exits, or a test that wants every step in
    /// order: a job retried after a backoff, or scheduled later, is not due until the configured
    /// clock says so. It is ``drain(until:gracePeriod:)`` one attempt at a time: each attempt is
    /// claimed, run and recorded as ``run()`` does it (leases renewed by heartbeat, retries,
    /// timeouts, history); nothing is claimed ahead. Jobs of this host's dead processes are
    /// recovered first, and schedules whose tick is due enqueue their jobs. Cancelling the calling
    /// task stops the running attempt, gives its job back uncounted, and returns.
    ///
    /// For example:
    /// ```swift
    /// _ = try await queue.enqueue(SendEmail.self, mail)
    /// let ran = try await queue.runDueJobs()
    /// ```
    /// - Returns: How many attempts ran to a recorded end (given-back attempts are not counted).
    /// - Throws: `invalidArgument` while ``run()`` (or a drain) runs on this queue; storage errors
    ///   as ``run()``.
    @discardableResult
    public func runDueJobs(limit: Int = .max) async throws -> Int {
        try await engine.drain(DrainPlan(deadline: nil, gracePeriod: Self.defaultGracePeriod.milliseconds, limit: limit, concurrency: 1))
            .attemptsRun
    }

    /// Runs the jobs that are due, with the engine's concurrency, heartbeats and fencing, and
    /// returns when nothing is due, at `deadline`, or within `gracePeriod` of the calling task's
    /// cancellation: for an app's background time.
    ///
    /// Attempts still running at the deadline or the cancellation are stopped (their tasks are
    /// cancelled) and their jobs go back to `pending`, recorded in their history and not counted
    /// against their attempts; a handler that ignores the stop for `gracePeriod` is abandoned, its
    /// job given back all the same, and whatever it returns later discarded. Jobs of this host's
    /// dead processes are recovered first, and due schedules enqueue their jobs.
    ///
    /// In a background processing task, cancel the drain's task from the expiry handler, then
    /// schedule the next request from the report:
    /// ```swift
    /// let drain = Task { try await queue.drain() }
    /// task.expirationHandler = { drain.cancel() }
    /// let report = try await drain.value
    /// // report.nextDueAt: the next request's earliest begin date;
    /// // report.waitingWorkNeedsNetwork: whether it needs network connectivity.
    /// ```
    ///
    /// While ``run()`` runs on this queue (an app's engine, paused in the background with
    /// ``pauseInThisProcess(gracePeriod:)``), the drain lends it the time instead: a paused engine
    /// resumes, runs what is due until nothing is, the deadline or the cancellation, and pauses
    /// again, giving running attempts back; the report counts what ran meanwhile.
    ///
    /// - Parameters:
    ///   - deadline: When to stop, by the configured clock; nil for none.
    ///   - gracePeriod: How long stopped handlers may take to return before they are abandoned.
    /// - Returns: What ran, what was given back, and what is left.
    /// - Throws: `invalidArgument` while another drain runs on this queue, or for a negative grace
    ///   period; storage errors as ``run()``.
    public func drain(until deadline: Date? = nil, gracePeriod: Duration = defaultGracePeriod) async throws -> DrainReport {
        guard gracePeriod >= .zero else { throw DurableQueueError.invalidArgument("gracePeriod", "\(gracePeriod) is negative") }
        return try await engine.drain(DrainPlan(deadline: deadline?.millisecondsSince1970, gracePeriod: gracePeriod.milliseconds))
    }

    /// How long a drain's stopped handlers may take to return before they are abandoned: 2 seconds.
    public static let defaultGracePeriod: Duration = .seconds(2)
}
