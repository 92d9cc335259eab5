import Logging

extension JobEngine {
    /// Writes which job types this worker runs, at which versions (``WorkerPresence``): when
    /// ``run()`` starts, then about once a minute from maintenance. Best effort: a failure is logged
    /// and the next refresh tries again; nothing the engine does depends on these rows.
    func recordPresence(startedAt: Int64) async {
        do {
            try await store.recordWorker(
                configuration.workerID, runs: registry.runnable, queues: configuration.queues, startedAt: startedAt, now: now)
        } catch {
            logger.debug("could not record the job types this worker runs; will try again: \(error)")
        }
    }

    /// Marks this worker's rows paused as its process pauses: until it resumes (and writes them
    /// again) it writes nothing, and its rows say it paused rather than go stale. Best effort, as
    /// ``recordPresence(startedAt:)``.
    func recordPresencePaused() async {
        do {
            try await store.recordWorkerPaused(configuration.workerID, now: now)
        } catch {
            logger.debug("could not record that this worker paused (its rows go stale in three minutes): \(error)")
        }
    }

    /// Deletes this worker's rows as ``run()`` ends: it runs nothing any more.
    func forgetPresence() async {
        do {
            try await store.forgetWorker(configuration.workerID, now: now)
        } catch {
            logger.debug("could not delete the job types this worker ran (they go stale in three minutes): \(error)")
        }
    }
}
