import Foundation

/// One job type a running worker runs, and when the worker said so: a row of `worker_kinds`.
package struct WorkerKindRecord: Sendable, Hashable {
    /// The worker (``JobQueue/Configuration/workerID``).
    package var workerID: String
    /// The job type's name (``Job/name``).
    package var kind: String
    /// The versions of it the worker runs (``JobVersions/runs``).
    package var versions: ClosedRange<Int>
    /// When the worker's `run()` started.
    package var startedAt: Int64
    /// When the worker last wrote its rows.
    package var seenAt: Int64
    /// The queues the worker runs the kind on (``JobQueue/Configuration/queues``); nil for every queue.
    package var queues: Set<String>?
    /// When the worker's process paused (``JobQueue/pauseInThisProcess(gracePeriod:)``); nil while it runs.
    package var pausedAt: Int64?

    package init(
        workerID: String, kind: String, versions: ClosedRange<Int>, startedAt: Int64, seenAt: Int64, queues: Set<String>? = nil,
        pausedAt: Int64? = nil
    ) {
        self.workerID = workerID
        self.kind = kind
        self.versions = versions
        self.startedAt = startedAt
        self.seenAt = seenAt
        self.queues = queues
        self.pausedAt = pausedAt
    }

    /// Whether the worker runs jobs of queue `queue`.
    package func runs(queue: String) -> Bool { queues?.contains(queue) ?? true }

    /// ``queues`` as the `queues` column stores it: a JSON array of the names in order; nil for every queue.
    package var queuesText: String? {
        guard let queues else { return nil }
        return (try? JSONEncoder().encode(queues.sorted())).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The queues a `queues` column holds (see ``queuesText``); nil (every queue) for NULL or text
    /// that is not a JSON array of names.
    package static func queues(fromText text: String?) -> Set<String>? {
        guard let text, let names = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { return nil }
        return Set(names)
    }
}
