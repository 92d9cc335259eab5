import DurableQueueCore
import Foundation

extension SQLiteJobStore {
    /// The entry of `key` in `namespace`, or nil if the key was never requested (or was reset).
    package func cacheEntry(namespace: String, key: String) throws -> CacheEntryRecord? {
        try read("read cache key '\(key)' in '\(namespace)'") { try entry(namespace: namespace, key: key) }
    }

    /// Whether the results cache has any entry, and whether any dependency waits for a job to end:
    /// read once per transaction that ends jobs, in one statement, rather than probed per ending
    /// (most files have neither), and not read at all while the file is known to have neither
    /// (``knownNoEndingHooks``): the read was 1.6 % of a job run one at a time.
    func endingHooksInUse() throws -> (cache: Bool, dependencies: Bool) {
        if transactionKnowsNoEndingHooks { return (false, false) }
        var found = (cache: true, dependencies: true)
        try connection.query(
            "SELECT EXISTS (SELECT 1 FROM cache_entries), EXISTS (SELECT 1 FROM job_dependencies WHERE outcome IS NULL)"
        ) { found = ($0.int64(0) == 1, $0.int64(1) == 1) }
        transactionKnowsNoEndingHooks = !found.cache && !found.dependencies
        return found
    }

    /// Says that the transaction under way may have added a cache entry or a waiting dependency:
    /// the next ``endingHooksInUse()`` reads the file again.
    func endingHooksMayHaveAppeared() {
        transactionKnowsNoEndingHooks = false
        knownNoEndingHooks = nil
    }

    func entry(namespace: String, key: String) throws -> CacheEntryRecord? {
        var entry: CacheEntryRecord?
        try connection.query(
            "SELECT state, job_id, output, error, failures FROM cache_entries WHERE namespace = ? AND key = ?",
            [namespace, key]
        ) { row in
            guard let state = CacheEntryRecord.State(rawValue: row.string(0)) else {
                throw DurableQueueError(.corrupt, "unknown cache state '\(row.string(0))' in cache_entries")
            }
            entry = CacheEntryRecord(
                state: state, job: row.optionalInt64(1).map { JobID($0) }, output: row.optionalString(2),
                error: row.optionalString(3).flatMap { try? JSONDecoder().decode(JobFailure.self, from: Data($0.utf8)) },
                failures: Int(row.int64(4)))
        }
        return entry
    }
}
