import DurableQueue
import Foundation

extension PostgresJobStore {
    /// A key's entry; nil if never requested or reset.
    package func cacheEntry(namespace: String, key: String) async throws -> CacheEntryRecord? {
        try await read("read cache key '\(key)' in '\(namespace)'") { [self] session in try await entry(session, namespace: namespace, key: key, lock: false) }
    }

    /// A key's entry; `lock` holds its row until the transaction ends.
    func entry(_ session: PostgresSession, namespace: String, key: String, lock: Bool) async throws -> CacheEntryRecord? {
        guard
            let row = try await session.rows(
                "SELECT state, job_id, output::text, error::text, failures FROM cache_entries WHERE namespace = $1 AND key = $2"
                    + (lock ? " FOR UPDATE" : ""),
                [namespace, key]
            ).first
        else { return nil }
        guard let state = CacheEntryRecord.State(rawValue: try row.string(0)) else {
            throw DurableQueueError(.corrupt, "unknown cache state '\(try row.string(0))' in cache_entries")
        }
        return CacheEntryRecord(
            state: state, job: try row.optionalInt64(1).map { JobID($0) }, output: try row.optionalString(2),
            error: Self.failure(try row.optionalString(3)), failures: try row.int(4))
    }
}
