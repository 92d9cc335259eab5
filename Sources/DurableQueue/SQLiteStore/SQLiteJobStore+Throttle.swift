extension SQLiteJobStore {
    /// What a queue lets start now, read inside the claiming transaction.
    struct StartAllowance {
        /// How many jobs may start now.
        var slots: Int
        /// Whether throttle intervals run from a job's end (and the queue runs one job at a time).
        var measuredFromEnd: Bool
        /// The queue's rate limit: starts per window of `windowMilliseconds`.
        var rateLimit: (count: Int, windowMilliseconds: Int64)?
        /// The most running jobs of one partition key; 0: no limit.
        var partitionLimit = 0
    }

    /// How many of `wanted` jobs of the queue `settings` describes may start at `now`: none while it
    /// is suspended or before its next allowed start; within its concurrency limit (1 when
    /// throttled from the end) over every process; within what its rate limit leaves in the
    /// current window.
    func startAllowance(_ settings: QueueStartSettings, wanted: Int, now: Int64) throws -> StartAllowance {
        let queue = settings.name
        let rateLimit = settings.rateCount > 0 ? (settings.rateCount, settings.rateWindow) : nil
        var allowance = StartAllowance(
            slots: 0, measuredFromEnd: settings.measuredFromEnd, rateLimit: rateLimit, partitionLimit: settings.partitionLimit)
        guard !settings.suspended, settings.nextStart <= now else { return allowance }

        var slots = wanted
        let limit = settings.measuredFromEnd ? 1 : settings.concurrencyLimit
        if limit > 0 {
            let running = try connection.scalarInt64(
                "SELECT count(*) FROM jobs WHERE queue = ? AND state = 'running'", [queue]) ?? 0
            slots = min(slots, limit - Int(running))
        }
        if let rateLimit {
            let recent = try connection.scalarInt64(
                "SELECT count(*) FROM queue_starts WHERE queue = ? AND started_at > ?",
                [queue, now - rateLimit.1]) ?? 0
            slots = min(slots, rateLimit.0 - Int(recent))
        }
        allowance.slots = max(0, slots)
        return allowance
    }

    /// Records the starts of `claimed` (all of `queue`, at `now`) and moves the queue's next allowed
    /// start: past the interval of a throttled job measured from its start, and past the window of
    /// the rate limit's oldest counted start when the window is full.
    func recordStarts(_ claimed: [ClaimedJob], queue: String, allowance: StartAllowance, now: Int64) throws {
        var nextStart: Int64 = 0
        if !allowance.measuredFromEnd, let interval = claimed.map(\.throttleIntervalMilliseconds).max(), interval > 0 {
            nextStart = now + interval
        }
        if let rateLimit = allowance.rateLimit {
            for _ in claimed {
                try connection.execute("INSERT INTO queue_starts (queue, started_at) VALUES (?, ?)", [queue, now])
            }
            try connection.execute(
                "DELETE FROM queue_starts WHERE queue = ? AND started_at <= ?", [queue, now - rateLimit.windowMilliseconds])
            // A new start needs fewer than `count` starts in the window before it: it may come one
            // window after the count-th most recent start.
            if let oldestCounted = try connection.scalarInt64(
                "SELECT started_at FROM queue_starts WHERE queue = ? ORDER BY started_at DESC LIMIT 1 OFFSET ?",
                [queue, rateLimit.count - 1])
            {
                nextStart = max(nextStart, oldestCounted + rateLimit.windowMilliseconds)
            }
        }
        if nextStart > now { try postponeNextStart(of: queue, until: nextStart) }
    }

    /// After a job of `queue` with throttle interval `interval` (ms) ended at `now` — finished,
    /// interrupted or given back — keeps the interval before the next start if the queue measures it
    /// from the end.
    func recordEnd(queue: String, interval: Int64, now: Int64) throws {
        guard interval > 0 else { return }
        try connection.execute(
            """
            UPDATE queues SET next_start_at = max(next_start_at, ?2)
            WHERE name = ?1 AND throttle_measured_from = 'end'
            """, [queue, now + interval])
    }

    private func postponeNextStart(of queue: String, until time: Int64) throws {
        try connection.execute(
            "UPDATE queues SET next_start_at = max(next_start_at, ?2) WHERE name = ?1", [queue, time])
    }
}
