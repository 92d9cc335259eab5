import DurableQueue
import Foundation

extension PostgresJobStore {
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

    /// How many jobs wait (pending or scheduled) of each kind and version, in each queue.
    package func waitingJobsByKind() async throws -> [QueuedKindVersion: Int] {
        try await read("count waiting jobs by kind") { session in
            var counts: [QueuedKindVersion: Int] = [:]
            for row in try await session.rows(
                "SELECT queue, kind, version, count(*) FROM jobs WHERE state IN ('pending', 'scheduled') GROUP BY queue, kind, version", [])
            {
                counts[QueuedKindVersion(queue: try row.string(0), kind: try row.string(1), version: try row.int(2))] = try row.int(3)
            }
            return counts
        }
    }
}
