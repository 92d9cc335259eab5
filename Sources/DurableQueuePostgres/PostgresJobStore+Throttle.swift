import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Records the starts of `claimed` and moves the queue's next allowed start: past the interval
    /// of a throttled job measured from its start, and past the window of the rate limit's oldest
    /// counted start when the window is full. Runs under the queue's lock.
    func recordStarts(_ session: PostgresSession, _ claimed: [ClaimedJob], queue: QueueStartSettings, now: Int64) async throws {
        var countedStart: Int64?
        if queue.rateCount > 0 {
            try await session.execute(
                "INSERT INTO queue_starts (queue, started_at) SELECT $1, $2 FROM generate_series(1, $3)",
                [queue.name, now, claimed.count])
            try await session.execute(
                "DELETE FROM queue_starts WHERE queue = $1 AND started_at <= $2", [queue.name, now - queue.rateWindow])
            countedStart = try await session.int64(
                "SELECT started_at FROM queue_starts WHERE queue = $1 ORDER BY started_at DESC LIMIT 1 OFFSET $2",
                [queue.name, queue.rateCount - 1])
        }
        if let nextStart = queue.nextStart(afterStartsAt: now, intervals: claimed.map(\.throttleIntervalMilliseconds), countedStart: countedStart) {
            try await session.execute(
                "UPDATE queues SET next_start_at = greatest(next_start_at, $2) WHERE name = $1", [queue.name, nextStart])
        }
    }

    /// After a job of `queue` with throttle interval `interval` ended at `now`, keeps the interval
    /// before the next start if the queue measures it from the end, and the gap of its key `key`
    /// (``KeyStartRecord/endGap``) before the key's next start.
    func recordEnd(_ session: PostgresSession, queue: String, interval: Int64, key: String?, now: Int64) async throws {
        if let key {
            try await session.execute(
                """
                UPDATE partition_keys SET next_start_at = greatest(next_start_at, $3 + end_gap_ms)
                WHERE queue = $1 AND key = $2 AND end_gap_ms > 0
                """, [queue, key, now])
        }
        guard interval > 0 else { return }
        try await session.execute(
            """
            UPDATE queues SET next_start_at = greatest(next_start_at, $2)
            WHERE name = $1 AND throttle_measured_from = 'end'
            """, [queue, now + interval])
    }
}
