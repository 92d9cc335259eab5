import Foundation

/// The wait for a signal passed its timeout before the signal came
/// (``JobContext/waitForSignal(_:as:timeout:)``). A handler can catch it and go on; if it lets it
/// through, the attempt fails without a retry (every later run of the job would time out the same
/// way: the timeout is recorded as the wait's step).
public struct SignalTimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The signal waited for.
    public let signal: String
    /// When the wait timed out.
    public let deadline: Date

    /// Creates the error of a wait for `signal` that timed out at `deadline`.
    public init(signal: String, deadline: Date) {
        self.signal = signal
        self.deadline = deadline
    }

    public var description: String { "the wait for signal '\(signal)' timed out" }
}
