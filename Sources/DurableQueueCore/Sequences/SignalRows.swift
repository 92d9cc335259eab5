/// A job's row as a signal sent to it reads it.
package struct SignalTarget: Sendable {
    package var state: JobState
    /// The signal it waits for, while it waits.
    package var waitingFor: String?
    package var attempts: Int

    package init(state: JobState, waitingFor: String?, attempts: Int) {
        self.state = state
        self.waitingFor = waitingFor
        self.attempts = attempts
    }
}

/// A wait whose deadline passed, as recovery of waits reads it.
package struct PassedWait: Sendable {
    package var job: JobID
    package var attempts: Int
    /// The signal it waited for.
    package var name: String
    package var deadline: Int64

    package init(job: JobID, attempts: Int, name: String, deadline: Int64) {
        self.job = job
        self.attempts = attempts
        self.name = name
        self.deadline = deadline
    }
}

/// The row operations that ``SignalSequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol SignalRows: Sendable {
    /// Job `id` as an ending reads it, its row locked where the store locks rows, with how many
    /// history rows it has where the store counts them (see ``CancelRow/historyCount``); nil if
    /// there is no such job.
    func endingRow(_ id: JobID) async throws -> (row: EndingRow, historyCount: Int64)?
    /// The payload (JSON text) of signal `name` sent to job `id`, if one was.
    func signalPayload(_ id: JobID, name: String) async throws -> String?
    /// Records `step` of `attempt`, fenced: only while the row shows that attempt running under
    /// `owner` (false, nothing written, otherwise), stamped at a time read once the row is held,
    /// with its history row.
    ///
    /// - Throws: `invalidArgument` when the job has a step of that name already.
    func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) async throws -> Bool
    /// Ends `attempt` without counting it (its number is taken back, with a checkpoint it saved)
    /// for a wait on signal `name`: the job in `state` (`waiting`, or `cancelled` when a cancel was
    /// requested), waiting until `deadline` (nil: no deadline), its lease cleared, with its history
    /// row (`reason`, the attempt's number before it was taken back).
    func wait(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, for name: String,
        deadline: Int64?, now: Int64, reason: String
    ) async throws

    /// Job `id` as a signal reads it, its row locked where the store locks rows; nil if there is none.
    func signalTarget(_ id: JobID) async throws -> SignalTarget?
    /// Keeps signal `name` with `payload` for job `id`, once per job and name; false if one was kept already.
    func keepSignal(_ id: JobID, name: String, payload: String, now: Int64) async throws -> Bool
    /// Moves waiting job `id` to `pending`, due at `now`, with its history row.
    func wake(_ id: JobID, attempts: Int, now: Int64, reason: String) async throws
    /// The waits whose deadline is before `now`, in id order, their rows locked without waiting
    /// where the store locks rows (a signal being sent keeps its row for the next round).
    func passedWaits(now: Int64) async throws -> [PassedWait]
    /// Records `wait`'s timeout as its step (`output`, the attempt the wait took back); nothing if
    /// the job has that step already.
    func recordTimeout(of wait: PassedWait, attempt: Int, output: String, now: Int64) async throws
}
