import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Called in the transaction that moved job `id` to a terminal state: its cache entry records
    /// the outcome, and its group goes on.
    func jobEnded(_ session: PostgresSession, _ id: JobID, now: Int64) async throws {
        let group = try await session.int64("SELECT group_id FROM jobs WHERE id = $1", [id.rawValue])
        try await jobEnded(session, id, group: group.map { GroupID($0) }, now: now)
    }

    /// ``jobEnded(_:_:now:)`` for a caller that has read the job's group already, and may know that
    /// no cache entry exists at all (`cacheInUse` false) or that no dependency waits
    /// (`dependenciesWaiting` false).
    func jobEnded(
        _ session: PostgresSession, _ id: JobID, group: GroupID?, cacheInUse: Bool = true, dependenciesWaiting: Bool = true, now: Int64
    ) async throws {
        try await EndingSequences.jobEnded(
            id, group: group, cacheInUse: cacheInUse, dependenciesWaiting: dependenciesWaiting,
            in: PostgresRows(store: self, session: session), now: now)
    }
}
