/// How a finished job ended, with its typed output or its error: what ``JobHandle/outcome()`` returns.
///
/// For example:
/// ```swift
/// switch try await handle.outcome() {
/// case .succeeded(let thumbnail): show(thumbnail)
/// case .failed(let failure): print("failed: \(failure.message)")
/// case .cancelled: break  // someone cancelled it: not an error to report
/// }
/// ```
public enum JobOutcome<Output: Sendable>: Sendable {
    /// The job succeeded with this output.
    case succeeded(Output)
    /// The job failed: its last attempt's error.
    case failed(JobFailure)
    /// The job was cancelled (a cancel requested before an attempt's end was recorded wins over
    /// that attempt's result, which is discarded).
    case cancelled

    /// Whether the job was cancelled.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// The output, if the job succeeded.
    public var output: Output? {
        if case .succeeded(let output) = self { return output }
        return nil
    }

    /// The error, if the job failed.
    public var failure: JobFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}
