import Foundation

/// How many attempts a job gets and how long it waits between them.
///
/// The attempt limit is stored in `jobs.max_attempts` and the backoff as JSON in `jobs.retry_policy`,
/// so a job keeps its policy across restarts. Which errors retry is the job type's decision:
/// ``Job/shouldRetry(after:)``.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts, the first included; nil means unlimited.
    public var maxAttempts: Int?
    /// The wait before each further attempt.
    public var backoff: Backoff

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maxAttempts: The most attempts (≥ 1), or nil for unlimited. Default 3.
    ///   - backoff: The wait between attempts. Default: exponential from 1 s, doubling, at most 5 min.
    public init(maxAttempts: Int? = 3, backoff: Backoff = .exponential()) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
    }

    /// Three attempts, exponential backoff from 1 s. Made once: each enqueue with the default
    /// options reads it, and making it converted three durations.
    public static let `default` = RetryPolicy()
    /// One attempt only.
    public static var never: RetryPolicy { RetryPolicy(maxAttempts: 1, backoff: .constant(.zero)) }

    /// As many attempts as it takes.
    public static func unlimited(backoff: Backoff = .exponential()) -> RetryPolicy {
        RetryPolicy(maxAttempts: nil, backoff: backoff)
    }
}

/// The wait before a further attempt, growing with the attempt number.
public struct Backoff: Sendable, Hashable, Codable {
    private enum Shape: String, Codable {
        case constant, linear, exponential
    }

    private var shape: Shape
    private var initialMilliseconds: Int64
    private var incrementMilliseconds: Int64
    private var multiplier: Double
    private var maximumMilliseconds: Int64
    private var jitter: Double

    /// The same wait every time.
    public static func constant(_ delay: Duration) -> Backoff {
        Backoff(shape: .constant, initialMilliseconds: delay.milliseconds, incrementMilliseconds: 0, multiplier: 1,
                maximumMilliseconds: delay.milliseconds, jitter: 0)
    }

    /// `initial`, then `initial + increment`, `initial + 2 × increment` …, at most `maximum`.
    public static func linear(initial: Duration, increment: Duration, maximum: Duration = .seconds(3600)) -> Backoff {
        Backoff(shape: .linear, initialMilliseconds: initial.milliseconds, incrementMilliseconds: increment.milliseconds,
                multiplier: 1, maximumMilliseconds: maximum.milliseconds, jitter: 0)
    }

    /// `initial`, then × `multiplier` each time, at most `maximum`, each spread by ± `jitter` (a
    /// fraction) so that many jobs failing together do not retry together.
    public static func exponential(
        initial: Duration = .seconds(1), multiplier: Double = 2, maximum: Duration = .seconds(300), jitter: Double = 0.2
    ) -> Backoff {
        Backoff(shape: .exponential, initialMilliseconds: initial.milliseconds, incrementMilliseconds: 0,
                multiplier: max(1, multiplier), maximumMilliseconds: maximum.milliseconds, jitter: min(max(jitter, 0), 1))
    }

    /// The backoff as stored in `jobs.retry_policy`: JSON, or NULL for the default backoff, which
    /// the engine applies to a NULL policy (and which keeps every row 150 bytes shorter).
    func storedJSON() throws -> String? {
        self == .default ? nil : try JobCodec.encode(self)
    }

    /// The backoff of a job whose `retry_policy` is NULL: ``exponential(initial:multiplier:maximum:jitter:)``
    /// with its defaults.
    static let `default` = Backoff.exponential()

    /// The wait after failed attempt number `attempt` (from 1), in milliseconds.
    ///
    /// - Parameter unit: A random number in 0..<1 that places the wait within the jitter.
    func delayMilliseconds(afterAttempt attempt: Int, unit: Double) -> Int64 {
        let step = Double(max(attempt, 1) - 1)
        let base: Double =
            switch shape {
            case .constant: Double(initialMilliseconds)
            case .linear: Double(initialMilliseconds) + step * Double(incrementMilliseconds)
            case .exponential: Double(initialMilliseconds) * pow(multiplier, step)
            }
        let spread = base * (1 + jitter * (2 * unit - 1))
        return Int64(min(max(spread, 0), Double(maximumMilliseconds)))
    }
}
