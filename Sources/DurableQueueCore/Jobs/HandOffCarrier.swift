import Synchronization

/// Something outside the process that carries attempts handed off to it — a background
/// `URLSession`, another service — and reports their end to the queue
/// (``JobQueue/HandOffs/complete(job:attempt:output:)``, ``JobQueue/HandOffs/fail(job:attempt:error:retryable:)``).
///
/// A handler hands its attempt off with ``JobContext/handOff(to:reference:deadline:start:)``, naming
/// the carrier and the transfer (its *reference*). Register the carrier with
/// ``JobQueue/register(carrier:)`` in every process that may report for it, so that the queue can
/// reconcile the two sides (``JobQueue/HandOffs/reconcile()``): at the start of ``JobQueue/run()`` and
/// of a drain, hand-offs whose transfer the carrier no longer knows go back to `pending` without
/// counting, and transfers the carrier carries for a job no longer handed off (cancelled, past its
/// deadline, finished) are stopped.
public protocol HandOffCarrier: Sendable {
    /// The carrier's name, as hand-offs name it.
    var name: String { get }

    /// The references of the transfers it carries now, including those that ended but whose report
    /// has not been recorded yet (a reference missing here is taken for a lost transfer).
    func carriedReferences() async -> Set<String>

    /// Stops the transfers with these references: their attempts ended otherwise.
    func stopCarrying(_ references: Set<String>) async
}

/// The carriers registered in this process, by name.
final class HandOffCarriers: Sendable {
    private let carriers = Mutex<[String: any HandOffCarrier]>([:])

    /// Registers `carrier`, replacing one of the same name.
    func register(_ carrier: any HandOffCarrier) {
        carriers.withLock { $0[carrier.name] = carrier }
    }

    /// Every registered carrier, by name.
    var all: [any HandOffCarrier] { carriers.withLock { $0.values.sorted { $0.name < $1.name } } }

    /// Whether any carrier is registered.
    var isEmpty: Bool { carriers.withLock { $0.isEmpty } }
}

/// What ``JobQueue/HandOffs/reconcile()`` did.
public struct HandOffReconciliation: Sendable, Hashable {
    /// Handed-off jobs whose transfer no carrier knew: back to `pending`, their attempt uncounted.
    public var givenBack: [JobID]
    /// Transfers stopped because their job was no longer handed off, by carrier name.
    public var stopped: [String: Set<String>]

    /// A reconciliation's result; ``JobQueue/HandOffs/reconcile()`` makes them.
    public init(givenBack: [JobID] = [], stopped: [String: Set<String>] = [:]) {
        self.givenBack = givenBack
        self.stopped = stopped
    }
}
