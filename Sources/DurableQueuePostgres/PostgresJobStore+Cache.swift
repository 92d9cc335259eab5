import DurableQueue
import Foundation

extension PostgresJobStore {
    /// The stored value of a key, the job computing it, or a new job `job` enqueued for it: one job
    /// per key whatever the number of callers and nodes. They take turns on the key's row, created
    /// first if missing (a caller that finds another's uncommitted row waits for its commit).
    package func cachedValue(namespace: String, key: String, job: NewJob, maxFailures: Int?, now: Int64) async throws -> CacheLookup {
        try CacheRule.validate(job: job, maxFailures: maxFailures)
        return try await write("look up cache key '\(key)' in '\(namespace)'", now: now) { [self] session, now in
            try await session.execute(
                """
                INSERT INTO cache_entries (namespace, key, state, kind, max_failures, updated_at)
                VALUES ($1, $2, 'inProgress', $3, $4, $5) ON CONFLICT (namespace, key) DO NOTHING
                """, [namespace, key, job.kind, maxFailures, now])
            let entry = try await entry(session, namespace: namespace, key: key, lock: true)
            var computing = false
            if let running = CacheRule.jobToCheck(in: entry), let (state, _, _) = try await stateRow(session, running, lock: false) {
                computing = !state.isTerminal
            }
            if let answer = CacheRule.answer(for: entry, computing: computing, maxFailures: maxFailures) { return answer }
            let id = try await insert(session, job, now: now).id
            try await session.execute(
                """
                INSERT INTO cache_entries (namespace, key, state, kind, job_id, max_failures, updated_at)
                VALUES ($1, $2, 'inProgress', $3, $4, $5, $6)
                ON CONFLICT (namespace, key) DO UPDATE SET
                    state = 'inProgress', kind = excluded.kind, job_id = excluded.job_id,
                    max_failures = excluded.max_failures, updated_at = excluded.updated_at
                """, [namespace, key, job.kind, id.rawValue, maxFailures, now])
            return .computing(id, enqueued: true)
        }
    }

    /// A key's entry; nil if never requested or reset.
    package func cacheEntry(namespace: String, key: String) async throws -> CacheEntryRecord? {
        try await read("read cache key '\(key)' in '\(namespace)'") { [self] session in try await entry(session, namespace: namespace, key: key, lock: false) }
    }

    /// Forgets a key (or every key of `namespace`, or every key); returns how many.
    package func resetCache(namespace: String?, key: String?) async throws -> Int {
        try await write("reset cache entries", transaction: false) { session in
            try await session.execute(
                "DELETE FROM cache_entries WHERE ($1::text IS NULL OR namespace = $1) AND ($2::text IS NULL OR key = $2)",
                [namespace, key])
        }
    }

    /// A key's entry; `lock` holds its row until the transaction ends.
    private func entry(_ session: PostgresSession, namespace: String, key: String, lock: Bool) async throws -> CacheEntryRecord? {
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
