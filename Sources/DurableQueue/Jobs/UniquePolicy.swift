/// What enqueueing does when an active job (not yet finished) already has the same unique key.
public enum UniquePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Keep the existing job and return it; nothing new is enqueued. The default.
    case keep
    /// Cancel the existing job (a running one is asked to stop), then enqueue the new one.
    case replace
    /// Enqueue the new job anyway; the key is not recorded, so it never conflicts.
    case allow
}
