extension JobEngine {
    /// Runs due jobs in the calling task, one at a time in queue order, until none is due or `limit`
    /// attempts have run, enqueueing the jobs of due schedules first; see ``JobQueue/runDueJobs(limit:)``.
    ///
    /// - Returns: How many attempts ran.
    func runDueJobs(limit: Int) async throws -> Int {
        guard state.start() else {
            throw DurableQueueError(.invalidArgument, "the engine already runs on this JobQueue", path: store.location)
        }
        defer { state.reset() }
        lookUpTracer()
        // A schedule's tick that is due enqueues its job first: it is due too.
        _ = try await fireDueSchedules(now: now)
        var ran = 0
        while ran < limit {
            let room = state.reserveRoom(maximum: 1)
            do {
                state.admit(try await store.claim(claimRequest(room: room, now: now)), reserved: room)
            } catch {
                state.release(reserved: room)
                throw error
            }
            guard let (job, stop) = state.takeAdmitted().first else { break }
            await process(job, stop: stop)
            state.remove(job.attemptID, stop: stop)
            ran += 1
        }
        if let failure = state.failure { throw failure }
        return ran
    }
}
