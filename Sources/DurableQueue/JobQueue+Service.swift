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

    /// Runs the jobs that are due now in the calling task, one at a time in queue order, and returns
    /// when none is left (or `limit` attempts have run), instead of running the engine as a service.
    ///
    /// For a tool that works through what is due and exits, an app's short background task, or a
    /// test that wants every step in order: a job retried after a backoff, or scheduled later, is
    /// not due until the configured clock says so. Each attempt is claimed, run and recorded as
    /// ``run()`` does it (leases, retries, timeouts, history); nothing is claimed ahead. Schedules
    /// whose tick is due enqueue their jobs first.
    ///
    /// For example:
    /// ```swift
    /// _ = try await queue.enqueue(SendEmail.self, mail)
    /// let ran = try await queue.runDueJobs()
    /// ```
    /// - Returns: How many attempts ran.
    /// - Throws: `invalidArgument` while ``run()`` (or another call of this) runs on this queue;
    ///   storage errors as ``run()``.
    @discardableResult
    public func runDueJobs(limit: Int = .max) async throws -> Int {
        try await engine.runDueJobs(limit: limit)
    }
}
