/// The row operations that ``QueueSequences`` runs on: a queue's settings row and what a change of
/// its settings rewrites. Each reads or writes rows inside the transaction under way and decides
/// nothing.
package protocol QueueRows: Sendable {
    /// Queue `name`'s settings, its row held until the transaction ends (a store whose transaction
    /// holds its lock from the start reads); nil if the queue has no row.
    func lockedQueue(named name: String) async throws -> QueueConfiguration?
    /// Writes `queue`'s settings row: inserts it, or replaces every setting of the existing one
    /// (its suspension included), stamped `now`. Key-limit overrides are not written here.
    func saveQueueRow(_ queue: QueueConfiguration, now: Int64) async throws
    /// Replaces the key-limit override rows of `queue` with its ``QueueConfiguration/keyOverrides``.
    func replaceKeyOverrides(of queue: QueueConfiguration) async throws
    /// Forgets what queue `queue`'s keys have started and when their next start is allowed.
    func resetKeyStarts(ofQueue queue: String) async throws
    /// Negates the order key of every unfinished job of queue `queue` (FIFO ↔ LIFO).
    func flipOrderKeys(ofQueue queue: String) async throws
    /// The greatest order key among queue `queue`'s unfinished jobs (nil: none) and the queue's
    /// fair time.
    func latestOrderKeyAndFairTime(ofQueue queue: String) async throws -> (latestOrderKey: Int64?, fairTime: Int64)
    /// Sets queue `queue`'s fair time.
    func setFairTime(_ time: Int64, ofQueue queue: String) async throws
    /// Gives queue `queue`'s waiting jobs (`scheduled`, `pending`, `blocked`) the throttle interval
    /// `interval` (ms) from the queue: all of them, or (`onlyQueueDefaults`) those whose interval
    /// came from the queue.
    func setWaitingJobsInterval(_ interval: Int64, onlyQueueDefaults: Bool, ofQueue queue: String) async throws
    /// Lets queue `queue` start its next job at once (its next allowed start cleared).
    func clearNextStart(ofQueue queue: String) async throws
    /// Forgets queue `queue`'s recorded starts (the rate limit's window).
    func forgetStarts(ofQueue queue: String) async throws
    /// Sets whether queue `queue` is suspended, stamped `now`; false if the queue has no row.
    func markSuspended(_ suspended: Bool, queue: String, now: Int64) async throws -> Bool
}
