/// The jobs that run when a batch has ended (``JobQueue/enqueue(_:batch:options:callbacks:)``):
/// each waits for every job of the batch (``Dependency``), so it is enqueued with the batch, in
/// its transaction, and starts once — whatever process ends the batch's last job, whatever crashes.
public struct BatchCallbacks: Sendable {
    /// Runs once every job of the batch has succeeded; cancelled as soon as one fails or is
    /// cancelled (its history says which).
    public var onSuccess: BatchCallback?
    /// Runs once every job of the batch has ended, however; ``JobContext/batchSummary()`` says how.
    public var onComplete: BatchCallback?

    /// Callbacks; at least one is needed.
    public init(onSuccess: BatchCallback? = nil, onComplete: BatchCallback? = nil) {
        self.onSuccess = onSuccess
        self.onComplete = onComplete
    }
}

/// A callback job of a batch: its type, input and options (any queue; its ``EnqueueOptions/dependsOn``
/// gains the batch's jobs).
public struct BatchCallback: Sendable {
    /// Enqueues the callback in the batch's transaction, waiting for `edges`.
    let enqueue: @Sendable (QueueTransaction, [Dependency]) throws -> JobID

    /// A job of type `C` with `input` and `options`.
    public static func job<C: Job>(_ type: C.Type, _ input: C.Input, options: EnqueueOptions = EnqueueOptions()) -> BatchCallback {
        BatchCallback { transaction, edges in
            var options = options
            options.dependsOn += edges
            return try transaction.enqueue(C.self, input, options: options)
        }
    }
}

/// A batch enqueued with callbacks: its jobs' ids, in input order, and its callbacks'.
public struct BatchHandle: Sendable, Hashable {
    /// The batch's jobs, in input order (an existing job's id where a unique key kept one).
    public var jobs: [JobID]
    /// The ``BatchCallbacks/onSuccess`` job, if any.
    public var onSuccess: JobID?
    /// The ``BatchCallbacks/onComplete`` job, if any.
    public var onComplete: JobID?
}

/// How a batch's jobs ended, as its callback reads it (``JobContext/batchSummary()``).
public struct BatchSummary: Sendable, Hashable, Codable {
    /// How many jobs the batch has.
    public var total: Int
    /// How many succeeded.
    public var succeeded: Int
    /// The jobs that failed, in batch order.
    public var failed: [JobID]
    /// The jobs that were cancelled, in batch order.
    public var cancelled: [JobID]

    /// Creates a summary.
    public init(total: Int, succeeded: Int, failed: [JobID], cancelled: [JobID]) {
        self.total = total
        self.succeeded = succeeded
        self.failed = failed
        self.cancelled = cancelled
    }

    /// The name of the edge from a callback to the batch's job at `index`.
    static func edgeName(_ index: Int) -> String { "batch-\(index)" }

    /// The summary of the batch edges among `dependencies` (named by ``edgeName(_:)``); nil if there are none.
    init?(_ dependencies: [DependencyRecord]) {
        let edges = dependencies.compactMap { record -> (index: Int, record: DependencyRecord)? in
            guard record.name.hasPrefix("batch-"), let index = Int(record.name.dropFirst(6)) else { return nil }
            return (index, record)
        }.sorted { $0.index < $1.index }.map(\.record)
        guard !edges.isEmpty else { return nil }
        self.init(
            total: edges.count, succeeded: edges.filter { $0.outcome == .succeeded }.count,
            failed: edges.filter { $0.outcome == .failed }.map(\.job), cancelled: edges.filter { $0.outcome == .cancelled }.map(\.job))
    }
}
