/// What a failed attempt asks the store to do: the one rule of retries, for attempts that end in a
/// handler and for handed-off attempts whose carrier reports a failure.
package enum RetryRule {
    /// Another attempt after the backoff (or the error's ``RetryAfterError/retryAfter``, if longer)
    /// when `retryable`, else failure. The backoff counts from the time the store records the
    /// failure, so the history shows it whole however long the ending waited to be committed. The
    /// store fails the job instead when it has used its attempts (those that saved progress do not
    /// count, so it alone knows whether this one did).
    ///
    /// - Parameters:
    ///   - attempt: The failed attempt's number.
    ///   - progressedAttempts: Attempts that saved progress: the backoff grows with the attempts that
    ///     got nowhere, and starts again after progress.
    ///   - retryPolicy: The job's stored ``Backoff`` (JSON), or nil for the default.
    package static func outcome(
        after error: any Error, retryable: Bool, attempt: Int, progressedAttempts: Int, retryPolicy: String?,
        unit: Double = Double.random(in: 0..<1)
    ) -> AttemptOutcome {
        let failure = JobFailure(error, retryable: retryable)
        guard retryable else { return .failed(failure) }
        let backoff = retryPolicy.flatMap { try? JobCodec.decode(Backoff.self, from: $0) } ?? .default
        var delay = backoff.delayMilliseconds(afterAttempt: max(1, attempt - progressedAttempts), unit: unit)
        if let asked = (error as? any RetryAfterError)?.retryAfter { delay = max(delay, asked.milliseconds) }
        return .retry(failure, after: delay)
    }
}
