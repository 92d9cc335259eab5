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

    /// Gives running attempts of `owner` back without counting them (a shutdown, or an attempt
    /// whose lease expired before its handler started), in job order; an attempt the row no longer
    /// shows under `owner` is left alone.
    ///
    /// - Returns: The attempts released.
    package static func release(
        _ attempts: [AttemptID], owner: String, now: Int64, reason: String, in rows: some StoreRows
    ) async throws -> [AttemptID] {
        var released: [AttemptID] = []
        for attempt in attempts.sorted(by: { $0.job.rawValue < $1.job.rawValue }) {
            guard let given = try await rows.giveBack(attempt, owner: owner, now: now, reason: reason) else { continue }
            try await rows.recordEnd(queue: given.queue, interval: given.throttleInterval, key: given.partitionKey, now: now)
            if given.state.isTerminal { try await EndingSequences.jobEnded(attempt.job, group: given.group, in: rows, now: now) }
            released.append(attempt)
        }
        return released
    }

    /// Gives handed-off attempts whose transfer was lost back to `pending` without counting them,
    /// in job order; an attempt the row no longer shows handed off is left alone.
    ///
    /// - Returns: The attempts given back.
    package static func giveBackHandOffs(_ attempts: [AttemptID], reason: String, now: Int64, in rows: some StoreRows)
        async throws -> [AttemptID]
    {
        var givenBack: [AttemptID] = []
        for attempt in attempts.sorted(by: { $0.job.rawValue < $1.job.rawValue }) {
            if try await rows.giveBackHandOff(attempt, now: now, reason: reason) { givenBack.append(attempt) }
        }
        return givenBack
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
