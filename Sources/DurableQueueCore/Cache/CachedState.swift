/// The state of one key of a ``ResultCache``.
public enum CachedState<Output: Sendable>: Sendable {
    /// Never requested, or reset since.
    case absent
    /// A job computes the value now.
    case inProgress
    /// The stored value.
    case complete(Output)
    /// The last computation failed; `failures` counts every failed one since the key was last reset.
    case failed(JobFailure?, failures: Int)
}

extension CachedState: Equatable where Output: Equatable {}
extension CachedState: Hashable where Output: Hashable {}
