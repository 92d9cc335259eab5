import DurableQueue
import Synchronization
import Foundation

extension PostgresJobStore {
    /// Appends one row to the history, inside the transaction that changed the job.
    func appendEvent(
        _ session: PostgresSession, _ id: JobID, now: Int64, from: JobState?, to: JobState, attempt: Int, reason: String?,
        worker: String? = nil
    ) async throws {
        try await session.execute(
            """
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [id.rawValue, now, from?.rawValue, to.rawValue, attempt, reason, worker])
    }

    /// Creates the rows of the queues in `names` that have none, with default settings.
    func ensureQueuesExist(_ session: PostgresSession, _ names: Set<String>, now: Int64) async throws {
        let missing = knownQueues.withLock { names.subtracting($0) }
        guard !missing.isEmpty else { return }
        try await session.execute(
            """
            INSERT INTO queues (name, created_at, updated_at) SELECT unnest($1::text[]), $2, $2
            ON CONFLICT (name) DO NOTHING
            """, [missing.sorted(), now])
        knownQueues.withLock { $0.formUnion(missing) }
    }

    /// A stored failure, or nil for one this version cannot read.
    static func failure(_ json: String?) -> JobFailure? {
        json.flatMap { try? JobCodec.decode(JobFailure.self, from: $0) }
    }
}
