/// The row operations that ``DependencySequences`` runs on. Each reads or writes rows inside the
/// transaction under way and decides nothing.
package protocol DependencyRows: Sendable {
    /// Job `id` as a dependent's enqueue reads it, locked against ending unseen until the
    /// transaction commits where the store locks rows; nil if there is no such job.
    func dependencyParent(_ id: JobID) async throws -> OutcomeRow?
    /// Inserts the edge from job `id` to `dependency`, resolved with `parent`'s outcome when it
    /// has ended (`parent` nil: not yet).
    func insertEdge(of id: JobID, to dependency: Dependency, endedParent parent: OutcomeRow?, now: Int64) async throws
    /// Makes job `id`, inserted in this transaction, one created `blocked` (its history starting there).
    func createBlocked(_ id: JobID) async throws
}
