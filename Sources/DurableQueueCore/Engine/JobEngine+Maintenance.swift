import Foundation
import Logging

extension JobEngine {
    /// Heartbeats, expired-lease recovery, aging, retention pruning and this worker's presence
    /// (``recordPresence(startedAt:)``, for a run that started at `startedAt`), until the engine has finished.
    func maintain(startedAt: Int64) async {
        state.loopRuns(true)
        defer { state.loopRuns(false) }
        let time = configuration.timeSource
        var nextHeartbeat = now + configuration.heartbeatInterval.milliseconds
        var nextRecovery = now + configuration.leaseDuration.milliseconds / 2
        var nextPrune = now
        var nextAging = now
        var nextPresence = now + WorkerPresence.refreshInterval
        while !state.isFinished && !Task.isCancelled {
            let seen = maintenanceWake.generation
            if state.isPaused && state.runningCount == 0 {
                // Paused, with nothing left to renew: no reads or writes until resumed or finished;
                // then this worker's rows are written again at once (they say it paused).
                await parkWhilePaused(waitingOn: maintenanceWake, after: seen)
                nextPresence = now
                continue
            }
            let current = now
            // Leases are renewed before any recovery: after this process was frozen past its leases,
            // it must not take back its own running attempts as if their worker had died.
            if current >= nextHeartbeat || current >= nextRecovery {
                await heartbeat()
                nextHeartbeat = current + configuration.heartbeatInterval.milliseconds
            }
            if current >= nextRecovery {
                await recoverExpiredLeases()
                nextRecovery = current + configuration.leaseDuration.milliseconds / 2
            }
            if current >= nextPrune {
                await prune()
                nextPrune = current + configuration.retention.interval.milliseconds
            }
            if current >= nextPresence {
                await recordPresence(startedAt: startedAt)
                nextPresence = current + WorkerPresence.refreshInterval
            }
            if current >= nextAging {
                // Once a second while a queue ages (an interval is at least a second), else every 10 s.
                nextAging = current + (await ageWaitingJobs() ? 1_000 : 10_000)
            }
            let wake = min(nextHeartbeat, nextRecovery, nextPrune, nextAging, nextPresence)
            await maintenanceWake.wait(after: seen, until: Date(millisecondsSince1970: wake), time: time)
        }
    }

    /// Renews the leases of attempts running here; stops each attempt whose lease was lost (the job
    /// was taken back elsewhere) and each whose job another process asked to cancel.
    func heartbeat() async {
        let running = state.runningAttempts
        guard !running.isEmpty else { return }
        let expiresAt = now + configuration.leaseDuration.milliseconds
        do {
            let held = try await store.renewLeases(running, owner: configuration.workerID, expiresAt: expiresAt)
            storageSucceeded()
            // An attempt handing off holds no lease once its hand-off commits, by design: not lost.
            state.leasesRenewed(running, held: held, until: expiresAt, handingOff: attemptsHandingOff)
        } catch {
            _ = storageFailed(error, while: "renew the leases of \(running.count) running job(s)")
            // Not renewed, and past its lease: another worker may have taken the job back (this host
            // cut off, the store out of reach), so the handler is told to stop now rather than work on
            // for a result the store would discard. While the store answers, it alone says what is lost.
            let expired = state.leasesNotRenewed(running, at: now)
            guard !expired.isEmpty else { return }
            logger.info(
                "the leases of \(expired.count) running job(s) expired before the store could renew them; their handlers are stopped",
                metadata: ["job.ids": "\(expired.map(\.job.rawValue))"])
        }
    }

    /// Stops attempts running here whose cancel another process requested.
    func stopJobsCancelledElsewhere() async {
        guard state.runningCount > 0 else { return }
        do {
            for id in try await store.cancelRequested(owner: configuration.workerID) { state.stop(job: id, .cancelRequested) }
        } catch {
            logger.debug("could not read cancel requests; will try again: \(error)")
        }
    }

    /// Gives jobs whose worker died back to `pending` (or ends them), ends the waits for a signal
    /// past their timeout (see ``JobStore/endPassedWaits(now:)``), and wakes the dispatcher.
    ///
    /// - Parameter includingDeadLocalWorkers: Also takes back the jobs of this host's workers whose
    ///   process is gone (see ``Configuration/recoverDeadLocalWorkers``), leases or not.
    func recoverExpiredLeases(includingDeadLocalWorkers: Bool = false) async {
        do {
            var dead: [String] = []
            if includingDeadLocalWorkers {
                dead = LocalWorker.deadOwners(among: try await store.leaseOwners(), currentWorkerID: configuration.workerID)
            }
            // Not a sign that writes work again: a recovery that finds nothing writes nothing.
            let recovered = try await store.recoverExpiredLeases(
                now: now, deadOwners: dead, lostAttemptLimit: configuration.lostAttemptLimit)
            let timedOut = try await store.endPassedWaits(now: now)
            if !timedOut.isEmpty {
                logger.debug("\(timedOut.count) wait(s) for a signal timed out")
                jobChanges.signal()
                wake.signal()
            }
            guard !recovered.isEmpty else { return }
            // A hand-off past its deadline: its carrier stops the transfer.
            if recovered.contains(where: { $0.handOff != nil }) { await stopOrphanedTransfers() }
            for job in recovered {
                let metadata: Logger.Metadata = [
                    "job.id": "\(job.id)", "job.state": "\(job.state.rawValue)", "worker.id": "\(job.previousOwner ?? "?")",
                ]
                if job.isPoison {
                    logger.warning("failed a poison job: its worker stopped during too many attempts in a row", metadata: metadata)
                    metrics.poisoned(queue: job.queue, kind: job.kind)
                } else {
                    logger.info("recovered a job whose worker stopped", metadata: metadata)
                }
            }
            jobChanges.signal()
            wake.signal()
        } catch {
            _ = storageFailed(error, while: "recover jobs whose worker stopped")
        }
    }

    /// Raises the priority of jobs that waited their queue's aging interval; whether any queue ages
    /// (or the store could not say).
    private func ageWaitingJobs() async -> Bool {
        do {
            guard let risen = try await store.ageWaitingJobs(now: now) else { return false }
            if risen > 0 {
                logger.debug("raised the priority of \(risen) waiting job(s)")
                wake.signal()
            }
            return true
        } catch {
            logger.debug("could not age waiting jobs; will try again: \(error)")
            return true
        }
    }

    /// Deletes finished jobs older than the retention allows, one small batch per transaction.
    private func prune() async {
        for (finished, age) in configuration.retention.limits {
            let cutoff = now - age.milliseconds
            var deleted = 0
            do {
                while !state.isFinished {
                    let batch = try await store.prune(state: finished, finishedBefore: cutoff, limit: 500, now: now)
                    deleted += batch
                    if batch < 500 { break }
                    await Task.yield()
                }
            } catch {
                logger.debug("could not prune \(finished.rawValue) jobs; will try again: \(error)")
            }
            if deleted > 0 { logger.debug("pruned \(deleted) \(finished.rawValue) job(s)") }
        }
        if metrics.hasBackend, let waiting = try? await store.waitingJobCounts() { metrics.depth(waiting) }
    }
}
