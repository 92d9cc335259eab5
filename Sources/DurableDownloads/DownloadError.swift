/// A download that cannot succeed by trying again: its content is not what was expected, or its
/// destination is unusable.
public struct DownloadError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in words.
    public let message: String

    /// Creates the error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
