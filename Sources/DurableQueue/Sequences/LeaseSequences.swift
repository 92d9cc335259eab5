/// Lease recovery, written once for every store over its ``StoreRows``: what happens to a job whose
/// worker stopped (its lease expired, or its process is known to be gone) or whose hand-off passed
/// its deadline. The verdict is ``ExpiredLease``'s.
package enum LeaseSequences {
    /// A worker silent for this long (milliseconds) is forgotten.
    package static let workerForgottenAfter: Int64 = 86_400_000

    /// Takes back running jobs whose lease expired before `now` or whose worker is one of
    /// `deadOwners`, then handed-off jobs whose hand-off passed its deadline: each to `pending` (the
    /// attempt counts), `cancelled` or `failed`, with what depends on it when it ended; then
    /// forgets the workers silent for a day.
    package static func recoverExpiredLeases(
        now: Int64, deadOwners: [String], lostAttemptLimit: Int?, in rows: some StoreRows
    ) async throws -> [RecoveredJob] {
        var recovered: [RecoveredJob] = []
        for job in try await rows.expiredLeases(now: now, deadOwners: deadOwners) {
            recovered.append(try await recover(job, deadOwners: deadOwners, lostAttemptLimit: lostAttemptLimit, in: rows, now: now))
        }
        for job in try await rows.passedHandOffDeadlines(now: now) {
            recovered.append(try await recover(job, deadOwners: deadOwners, lostAttemptLimit: lostAttemptLimit, in: rows, now: now))
        }
        try await rows.forgetWorkers(silentSince: now - workerForgottenAfter)
        return recovered
    }

    private static func recover(
        _ job: RecoverableJob, deadOwners: [String], lostAttemptLimit: Int?, in rows: some StoreRows, now: Int64
    ) async throws -> RecoveredJob {
        let verdict = job.lease.verdict(deadOwners: deadOwners, lostAttemptLimit: lostAttemptLimit)
        try await rows.recordRecovery(of: job, verdict, now: now)
        try await rows.recordEnd(queue: job.queue, interval: job.throttleInterval, key: job.partitionKey, now: now)
        if verdict.state.isTerminal { try await EndingSequences.jobEnded(job.lease.id, group: job.group, in: rows, now: now) }
        return RecoveredJob(
            id: job.lease.id, previousOwner: job.lease.owner, state: verdict.state, queue: job.queue, kind: job.kind,
            isPoison: verdict.isPoison, handOff: job.lease.handOff)
    }
}
