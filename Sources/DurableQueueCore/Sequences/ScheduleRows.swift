/// The row operations that ``ScheduleSequences`` runs on: a schedule's row, and the jobs a tick
/// enqueues. Each reads or writes rows inside the transaction under way and decides nothing.
package protocol ScheduleRows: Sendable {
    /// Inserts `schedule`'s row, or replaces its job and rule keeping its pause, its last tick and
    /// (unless the rule's timing changed) its next tick; stamped `now`.
    func saveScheduleRow(_ schedule: ScheduleRecord, now: Int64) async throws
    /// Deletes schedule `name`'s row; false if there was none.
    func deleteScheduleRow(named name: String) async throws -> Bool
    /// Sets whether schedule `name` is paused, stamped `now`; a paused one that resumes gets its
    /// next tick `nextTickAt`. False if there is no such schedule.
    func markSchedulePaused(_ paused: Bool, named name: String, nextTickAt: Int64?, now: Int64) async throws -> Bool
    /// Moves schedule `name`'s next tick from `due` to `nextTickAt` if it is unpaused and its next
    /// tick is still `due` (the row held until the transaction ends); false otherwise.
    func moveScheduleTick(named name: String, from due: Int64, to nextTickAt: Int64?) async throws -> Bool
    /// Enqueues `job` as an enqueue does (its unique key's policy applied), with its creation
    /// history: a schedule's tick, or the job that computes a cache key.
    func enqueueJob(_ job: NewJob, now: Int64) async throws -> EnqueueOutcome
    /// Records schedule `name`'s last tick fired, `tick`, and the job it enqueued for it.
    func recordScheduleTick(named name: String, tick: Int64, job: JobID) async throws
}
