import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Every queue's settings, job counts and next allowed start.
    package func queueStatuses() async throws -> [QueueStatus] {
        try await read("read the queues") { [self] session in
            var counts: [String: [JobState: Int]] = [:]
            for row in try await session.rows("SELECT queue, state, count(*) FROM jobs GROUP BY queue, state") {
                counts[try row.string(0), default: [:]][try JobState(stored: row.string(1))] = try row.int(2)
            }
            var nextStarts: [String: Int64] = [:]
            for row in try await session.rows("SELECT name, next_start_at FROM queues WHERE next_start_at > 0") {
                nextStarts[try row.string(0)] = try row.int64(1)
            }
            return try await queues(session, named: nil, lock: false).map { queue in
                QueueStatus(
                    configuration: queue, counts: QueueCounts(queue: queue.name, counts: counts[queue.name] ?? [:]),
                    nextStartAt: nextStarts[queue.name])
            }
        }
    }

    /// How many jobs wait (scheduled, pending, blocked) in each queue, every queue listed.
    package func waitingJobCounts() async throws -> [String: Int] {
        try await read("count waiting jobs") { session in
            var counts: [String: Int] = [:]
            for row in try await session.rows(
                """
                SELECT q.name, (SELECT count(*) FROM jobs WHERE queue = q.name AND state IN ('scheduled', 'pending', 'blocked'))
                FROM queues AS q
                """)
            {
                counts[try row.string(0)] = try row.int(1)
            }
            return counts
        }
    }

    /// The unfinished jobs of queue `name` by partition key.
    package func keyCounts(queue name: String) async throws -> [KeyCounts] {
        try await read("count the jobs of queue '\(name)' by key") { session in
            var byKey: [String?: [JobState: Int]] = [:]
            for row in try await session.rows(
                """
                SELECT partition_key, state, count(*) FROM jobs
                WHERE queue = $1 AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
                GROUP BY partition_key, state
                """, [name])
            {
                byKey[try row.optionalString(0), default: [:]][try JobState(stored: row.string(1))] = try row.int(2)
            }
            var nextStarts: [String: Int64] = [:]
            for row in try await session.rows(
                "SELECT key, next_start_at FROM partition_keys WHERE queue = $1 AND next_start_at > 0", [name])
            {
                nextStarts[try row.string(0)] = try row.int64(1)
            }
            return KeyCounts.sorted(byKey, nextStarts: nextStarts)
        }
    }
}

