import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Puts a `failed` or `cancelled` job back to `pending` with fresh attempts, its checkpoint kept.
    package func retry(_ id: JobID, now: Int64) async throws {
        try await write("retry job \(id)") { [self] session in try await retryJob(session, id, now: now, via: nil) }
    }

    /// Retries job `id` inside the caller's transaction, `via` (a bulk action) added to the
    /// history's reason; throws as ``retry(_:now:)`` does, before writing anything.
    func retryJob(_ session: PostgresSession, _ id: JobID, now: Int64, via: String?) async throws {
        guard
            let row = try await session.rows(
                "SELECT state, attempts, group_id, unique_key FROM jobs WHERE id = $1 FOR UPDATE", [id.rawValue]
            ).first
        else { throw DurableQueueError.jobNotFound(id) }
        let now = stamp(now)  // the job's row is locked
        let state = try JobState(stored: row.string(0))
        let group = try row.optionalInt64(2).map { GroupID($0) }
        let key = try row.optionalString(3)
        var holder: Int64?
        if let key {
            holder = try await session.int64(
                "SELECT id FROM jobs WHERE unique_key = $1 AND id <> $2 AND \(Self.holdsUniqueKey) LIMIT 1", [key, id.rawValue])
        }
        try ManualRetry.check(id, state: state, group: group, uniqueKey: key, uniqueKeyHolder: holder.map { JobID($0) })
        try await putBack(session, id, as: .pending, now: now)
        try await appendEvent(
            session, id, now: now, from: state, to: .pending, attempt: 0,
            reason: ManualRetry.reason(afterAttempts: try row.int(1), via: via))
    }

    /// Puts job `id` back in `state` with a fresh set of attempts, due at `now`, its checkpoint kept;
    /// the caller appends the history row.
    func putBack(_ session: PostgresSession, _ id: JobID, as state: JobState, now: Int64) async throws {
        try await session.execute(
            """
            UPDATE jobs SET state = $3, attempts = 0, progressed_attempts = 0, checkpoint_attempt = NULL, cancel_requested = 0,
                            run_at = $2, lease_owner = NULL, lease_expires_at = NULL, finished_at = NULL, updated_at = $2,
                            lost_in_a_row = 0, last_lost_attempt = NULL
            WHERE id = $1
            """, [id.rawValue, now, state.rawValue])
    }
}
