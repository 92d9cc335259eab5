import Logging
import Synchronization

/// Where attempts' handlers start.
///
/// A handler starts on the thread of its attempt's task, up to its first suspension, where the OS
/// offers it (``startOnThisThread(_:)``): scheduled instead, it cost a hand-off to another thread
/// and one back for every attempt. When the engine's tasks run on the store's executor (PostgreSQL's
/// event loop, ``JobStore/preferredTaskExecutor``), that thread also sends every statement of this
/// process and reads every answer: a handler that computes for long before it first suspends would
/// hold them all up. Such a kind's later attempts start on Swift's global executor instead, once its
/// handler kept the thread longer than ``limit``.
final class HandlerStarts: Sendable {
    /// How long a handler may keep the store's thread before its first suspension: wide enough that
    /// a quick handler whose thread the OS set aside for a while on a busy machine keeps its place.
    static let limit: Duration = .milliseconds(10)

    /// Whether the engine's tasks run on the store's executor.
    private let onStoreExecutor: Bool
    /// The kinds whose handlers start on Swift's global executor.
    private let startedElsewhere = Mutex<Set<String>>([])

    /// Handlers of an engine whose tasks run on the store's executor when `onStoreExecutor`.
    init(onStoreExecutor: Bool) {
        self.onStoreExecutor = onStoreExecutor
    }

    /// Starts `run`, the handler of an attempt of `kind`.
    func start(kind: String, logger: Logger, _ run: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        guard onStoreExecutor else { return startOnThisThread(run) ?? Task(operation: run) }
        if startedElsewhere.withLock({ $0.contains(kind) }) { return Task(operation: run) }
        let clock = ContinuousClock()
        let startedAt = clock.now
        guard let handler = startOnThisThread(run) else { return Task(operation: run) }
        let kept = clock.now - startedAt
        if kept > Self.limit && startedElsewhere.withLock({ $0.insert(kind).inserted }) {
            logger.notice(
                "a handler of '\(kind)' kept the database connections' thread for \(kept) before it first suspended; its attempts now start on Swift's global executor",
                metadata: ["job.kind": "\(kind)"])
        }
        return handler
    }
}
