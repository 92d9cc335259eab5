import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Deletes up to `limit` jobs (and outermost groups) that finished in `state` before the cutoff,
    /// and up to `limit` `deleted_jobs` lines of jobs deleted by hand in `state` before it.
    package func prune(state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int {
        guard state.isTerminal else {
            throw DurableQueueError.invalidArgument("state", "only finished jobs can be pruned, not '\(state.rawValue)' ones")
        }
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        return try await write("prune \(state.rawValue) jobs", notify: false) { session in
            let jobs = try await session.execute(
                """
                DELETE FROM jobs WHERE id IN (
                    SELECT id FROM jobs
                    WHERE state = $1 AND finished_at < $2
                      AND NOT EXISTS (SELECT 1 FROM groups AS g WHERE g.id = jobs.group_id AND g.state IN ('blocked', 'running'))
                    ORDER BY finished_at LIMIT $3
                    FOR UPDATE SKIP LOCKED)
                """, [state.rawValue, finishedBefore, limit])
            let groups = try await session.execute(
                """
                DELETE FROM groups WHERE id IN (SELECT id FROM groups
                                                WHERE parent_id IS NULL AND state = $1 AND finished_at < $2
                                                ORDER BY finished_at LIMIT $3
                                                FOR UPDATE SKIP LOCKED)
                """, [state.rawValue, finishedBefore, limit])
            let lines = try await session.execute(
                """
                DELETE FROM deleted_jobs WHERE job_id IN (SELECT job_id FROM deleted_jobs
                                                          WHERE state = $1 AND deleted_at < $2
                                                          ORDER BY deleted_at LIMIT $3
                                                          FOR UPDATE SKIP LOCKED)
                """, [state.rawValue, finishedBefore, limit])
            return jobs + groups + lines
        }
    }

    /// Running jobs of `owner` whose cancel was requested.
    package func cancelRequested(owner: String) async throws -> [JobID] {
        try await read("find cancelled jobs of worker '\(owner)'") { session in
            try await session.rows(
                "SELECT id FROM jobs WHERE state = 'running' AND lease_owner = $1 AND cancel_requested = 1", [owner]
            ).map { JobID(try $0.int64(0)) }
        }
    }

    /// The count of notifications heard; a new number at every call while nobody listens.
    package func changeToken() async throws -> Int64 { changes.token }

    /// How many jobs wait (pending or scheduled) of each kind not in `known`.
    package func waitingJobs(ofKindsOtherThan known: Set<String>) async throws -> [String: Int] {
        try await read("count waiting jobs by kind") { session in
            var counts: [String: Int] = [:]
            for row in try await session.rows(
                """
                SELECT kind, count(*) FROM jobs
                WHERE state IN ('pending', 'scheduled') AND kind <> ALL($1::text[])
                GROUP BY kind
                """, [known.sorted()])
            {
                counts[try row.string(0)] = try row.int(1)
            }
            return counts
        }
    }
}
