/// Starts `operation` as a new task that begins on the calling thread, up to its first suspension
/// (`Task.immediate`), where the OS offers it: on Apple platforms from the 2025 releases (macOS 26,
/// iOS 26…), always on Linux. Elsewhere it starts nothing and returns nil, and the caller schedules
/// its task as usual. After its first suspension the task runs on `executor` (a store's
/// ``JobStore/preferredTaskExecutor``), or on Swift's global executor when nil.
///
/// A task scheduled instead costs a hand-off to another thread and one back, which matters where
/// the caller waits for the task anyway (an attempt's handler; the commit of a lone ending; a
/// PostgreSQL store's call).
package func startOnThisThread(
    preferring executor: (any TaskExecutor)? = nil, _ operation: @escaping @Sendable () async -> Void
) -> Task<Void, Never>? {
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
        return Task.immediate(executorPreference: executor) { await operation() }
    }
    return nil
}
