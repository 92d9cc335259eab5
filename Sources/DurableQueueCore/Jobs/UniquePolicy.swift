/// What enqueueing does when an active job (not yet finished) already has the same unique key.
public enum UniquePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Keep the existing job and return it; nothing new is enqueued. The default.
    case keep
    /// Cancel the existing job (a running one is asked to stop), then enqueue the new one.
    case replace
    /// Enqueue the new job anyway; the key is not recorded, so it never conflicts.
    case allow
    /// Debounce: if the job holding the key still waits (`scheduled` or `pending`), give it the new
    /// job's input and run time (its delay or run-at) instead of enqueueing another, so that a burst
    /// of enqueues runs once, a delay after the last; the history notes each such change. If the
    /// job holding the key already runs (or is `blocked` in a sequence), it is kept, as with
    /// ``keep``, and the new input is not used. Not for schedules.
    case debounce
}
