/// A queue's aging as a store reads it from the `queues` table: the one rule of which waiting
/// jobs rise by one priority and what their history says.
///
/// A store selects the pending jobs of ``queue`` whose priority is below ``limit`` and whose last
/// change was at or before ``waitedSince(now:)``, raises each by one, and writes
/// ``reason(risenTo:)`` as its history row.
package struct AgingRule: Sendable, Hashable {
    package var queue: String
    /// Milliseconds a pending job waits, since its last change, before it rises.
    package var interval: Int64
    /// The priority aging never raises a job above.
    package var limit: Int

    package init(queue: String, interval: Int64, limit: Int) {
        self.queue = queue
        self.interval = interval
        self.limit = limit
    }

    /// Pending jobs last changed at or before this time have waited long enough to rise.
    package func waitedSince(now: Int64) -> Int64 { now - interval }

    /// The history reason of a job that rose to `priority`.
    package func reason(risenTo priority: Int) -> String { HistoryNote.aged(to: priority, after: interval) }
}

/// The promotion of scheduled jobs whose run time has come: the one rule both stores follow.
package enum DuePromotion {
    /// At most this many jobs move per call, the earliest due first, so one transaction never
    /// holds the write lock long; the next claim moves the rest.
    package static let batch = 500
    /// The history reason of a scheduled job that became `pending`.
    package static let reason = "due"
}
