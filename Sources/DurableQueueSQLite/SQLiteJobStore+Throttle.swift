import DurableQueueCore

extension SQLiteJobStore {
    /// What a queue lets start now, read inside the claiming transaction.
    struct StartAllowance {
        /// How many jobs may start now.
        var slots: Int
        /// The queue's settings, which decided it.
        var settings: QueueStartSettings
    }

    /// How many of `wanted` jobs of the queue `settings` describes may start at `now`
    /// (``QueueStartSettings/slots(wanted:running:recentStarts:)``), with the counts that rule
    /// needs read here.
    func startAllowance(_ settings: QueueStartSettings, wanted: Int, now: Int64) throws -> StartAllowance {
        guard settings.mayStart(at: now) else { return StartAllowance(slots: 0, settings: settings) }
        var running: Int64 = 0
        if settings.runningLimit > 0 {
            running = try connection.scalarInt64("SELECT count(*) FROM jobs WHERE queue = ? AND state = 'running'", [settings.name]) ?? 0
        }
        var recent: Int64 = 0
        if settings.rateCount > 0 {
            recent = try connection.scalarInt64(
                "SELECT count(*) FROM queue_starts WHERE queue = ? AND started_at > ?", [settings.name, now - settings.rateWindow]) ?? 0
        }
        return StartAllowance(
            slots: settings.slots(wanted: wanted, running: Int(running), recentStarts: Int(recent)), settings: settings)
    }

    /// Records the starts of `claimed` (all of `queue`, at `now`) and moves the queue's next allowed
    /// start as ``QueueStartSettings/nextStart(afterStartsAt:intervals:countedStart:)`` says.
    func recordStarts(_ claimed: [ClaimedJob], queue: String, allowance: StartAllowance, now: Int64) throws {
        let settings = allowance.settings
        var countedStart: Int64?
        if settings.rateCount > 0 {
            for _ in claimed {
                try connection.execute("INSERT INTO queue_starts (queue, started_at) VALUES (?, ?)", [queue, now])
            }
            try connection.execute("DELETE FROM queue_starts WHERE queue = ? AND started_at <= ?", [queue, now - settings.rateWindow])
            countedStart = try connection.scalarInt64(
                "SELECT started_at FROM queue_starts WHERE queue = ? ORDER BY started_at DESC LIMIT 1 OFFSET ?",
                [queue, settings.rateCount - 1])
        }
        if let next = settings.nextStart(afterStartsAt: now, intervals: claimed.map(\.throttleIntervalMilliseconds), countedStart: countedStart) {
            try postponeNextStart(of: queue, until: next)
        }
    }

    /// After a job of `queue` with throttle interval `interval` (ms) and partition key `key` ended
    /// at `now` — finished, interrupted or given back — keeps the interval before the next start if
    /// the queue measures it from the end, and its key's gap (``KeyStartRecord/endGap``) before the
    /// key's next start.
    func recordEnd(queue: String, interval: Int64, key: String?, now: Int64) throws {
        if let key {
            try connection.execute(
                """
                UPDATE partition_keys SET next_start_at = max(next_start_at, ?3 + end_gap_ms)
                WHERE queue = ?1 AND key = ?2 AND end_gap_ms > 0
                """, [queue, key, now])
        }
        guard interval > 0 else { return }
        queueSettingsChanged()
        try connection.execute(
            """
            UPDATE queues SET next_start_at = max(next_start_at, ?2)
            WHERE name = ?1 AND throttle_measured_from = 'end'
            """, [queue, now + interval])
    }

    private func postponeNextStart(of queue: String, until time: Int64) throws {
        queueSettingsChanged()
        try connection.execute(
            "UPDATE queues SET next_start_at = max(next_start_at, ?2) WHERE name = ?1", [queue, time])
    }
}
