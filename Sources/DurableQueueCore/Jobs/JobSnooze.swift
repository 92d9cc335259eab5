/// Thrown by a handler to say "not now: run me again in `delay`" — a rate limit answered with
/// "come back later", a resource not ready yet — without using up an attempt.
///
/// The job goes back to `scheduled` with `run_at` set `delay` from now (`pending` for a zero
/// delay), its history gets a `snoozed for …` event, and the attempt is not counted: the next run
/// sees the same ``JobContext/attempt`` and the job keeps every retry it had. A cancel requested
/// meanwhile wins, as over any ending. There is no limit on snoozes: a handler that always snoozes
/// never ends.
///
/// ```swift
/// func run(_ input: Sync, context: JobContext) async throws -> Report {
///     guard try await upstream.isReady() else { throw JobSnooze(.seconds(30)) }
///     …
/// }
/// ```
public struct JobSnooze: Error, Sendable, CustomStringConvertible {
    /// How long to wait before the job runs again; a negative delay counts as zero.
    public let delay: Duration

    /// - Parameter delay: How long to wait before the job runs again.
    public init(_ delay: Duration) {
        self.delay = delay
    }

    public var description: String { "snoozed for \(delay)" }
}
