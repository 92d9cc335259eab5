import Synchronization

/// The time a store's transaction stamps its rows with and takes its decisions at: the clock its
/// queue gave (``JobStore/stampTimes(with:)``), read once the transaction holds the locks its
/// decisions need, or the time its caller read if that is later. Until a queue gives a clock, the
/// caller's time (a store used on its own, as the store tests use it).
///
/// Each store keeps one and reads it at the right moment of each transaction: SQLite once
/// `BEGIN IMMEDIATE` holds the file's lock, PostgreSQL after a claim's queue lock or the row locks
/// of an ending, a cancel, a signal…, else as the transaction runs.
package final class TransactionClock: Sendable {
    private let clock = Mutex<(any TimeSource)?>(nil)

    package init() {}

    /// Makes later readings come from `source`.
    package func use(_ source: any TimeSource) {
        clock.withLock { $0 = source }
    }

    /// The time now, or `requested` (milliseconds since 1970) if that is later.
    package func stamp(_ requested: Int64) -> Int64 {
        max(requested, clock.withLock { $0?.nowMilliseconds } ?? requested)
    }
}
