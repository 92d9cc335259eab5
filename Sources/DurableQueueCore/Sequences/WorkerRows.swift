/// The row operations that ``WorkerSequences`` runs on: the `worker_kinds` rows of running workers
/// (``WorkerKindRecord``). Each reads or writes rows inside the transaction under way and decides
/// nothing.
package protocol WorkerRows: Sendable {
    /// Deletes worker `workerID`'s rows.
    func deleteWorkerKinds(of workerID: String) async throws
    /// Inserts `row`.
    func insertWorkerKind(_ row: WorkerKindRecord) async throws
    /// Deletes the rows of every worker last seen before `seenBefore`.
    func deleteWorkerKinds(seenBefore: Int64) async throws
    /// Marks worker `workerID`'s rows paused since `pausedAt`.
    func markWorkerKindsPaused(of workerID: String, at pausedAt: Int64) async throws
}
