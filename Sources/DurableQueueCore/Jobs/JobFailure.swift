/// Why an attempt failed, as stored in the `error` column (JSON).
public struct JobFailure: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The error's type name, such as `URLError`.
    public var type: String
    /// The error's description.
    public var message: String
    /// Whether the retry policy allowed another attempt for this error.
    public var retryable: Bool

    /// Creates a failure record.
    package init(type: String, message: String, retryable: Bool) {
        self.type = type
        self.message = message
        self.retryable = retryable
    }

    /// Records `error`: its dynamic type name and description.
    package init(_ error: any Error, retryable: Bool) {
        self.init(type: String(describing: Swift.type(of: error)), message: String(describing: error), retryable: retryable)
    }

    /// `type: message`.
    public var description: String { "\(type): \(message)" }
}
