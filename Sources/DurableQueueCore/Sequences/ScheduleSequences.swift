/// What a schedule's tick does, written once for every store.
package enum ScheduleSequences {
    /// Moves schedule `name`'s next tick from `due` to `nextTickAt` and enqueues `jobs` (one per
    /// tick fired, possibly none), only while the schedule is unpaused and its next tick is still
    /// `due`: however many processes fire a tick, one enqueues its job.
    ///
    /// - Returns: The jobs' outcomes, or nil when another process fired the tick or the schedule
    ///   changed since it was read (nothing written).
    package static func fire(
        named name: String, due: Int64, nextTickAt: Int64?, jobs: [(tick: Int64, job: NewJob)], in rows: any ScheduleRows, now: Int64
    ) async throws -> [EnqueueOutcome]? {
        guard try await rows.moveScheduleTick(named: name, from: due, to: nextTickAt) else { return nil }
        var outcomes: [EnqueueOutcome] = []
        for (_, job) in jobs { outcomes.append(try await rows.enqueueJob(job, now: now)) }
        if let last = jobs.last, let outcome = outcomes.last {
            try await rows.recordScheduleTick(named: name, tick: last.tick, job: outcome.id)
        }
        return outcomes
    }
}
