/// The row operations that pruning (``JobStore/prune(state:finishedBefore:limit:now:)``) runs on.
/// Each deletes rows inside the transaction under way, oldest first, and decides nothing; a store
/// with row locks skips rows another transaction holds (the next pass takes them).
package protocol PruneRows: Sendable {
    /// Deletes up to `limit` jobs that finished in `state` before `finishedBefore` (their history
    /// with them), but none of a group still under way; how many.
    func deleteFinishedJobs(in state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int
    /// Deletes up to `limit` outermost groups that finished in `state` before `finishedBefore`,
    /// with their nested groups and history; how many.
    func deleteFinishedGroups(in state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int
    /// Deletes up to `limit` `deleted_jobs` lines of jobs deleted by hand in `state` before
    /// `deletedBefore`; how many.
    func deleteDeletionLines(of state: JobState, deletedBefore: Int64, limit: Int) async throws -> Int
}
