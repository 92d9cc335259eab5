import Foundation

/// Where the engine reads the time and how it waits; the wall clock unless a test supplies another.
public protocol TimeSource: Sendable {
    /// The current time.
    func now() -> Date
    /// Returns at `deadline` (or at once if it has passed).
    ///
    /// - Throws: `CancellationError` if the waiting task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The system's wall clock.
public struct SystemTimeSource: TimeSource {
    /// Creates the wall clock.
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up)))) }
    }
}

extension Date {
    /// Milliseconds since 1970, as stored in the database.
    package var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The time `milliseconds` after 1970.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension TimeSource {
    /// The current time in milliseconds since 1970.
    package var nowMilliseconds: Int64 { now().millisecondsSince1970 }
}
