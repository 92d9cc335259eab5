/// What a reported ending does to its job's row: the one rule every store applies, inside the
/// transaction that found the row still showing the attempt running under its owner.
///
/// A retry with no attempts left fails (attempts that saved a new checkpoint do not count), and a
/// cancel requested before the commit wins over any ending, a success included.
package struct ResolvedEnding: Sendable, Hashable {
    /// The job's new state.
    package var state: JobState
    /// The output to store (a success).
    package var output: String?
    /// The error to store (a failure or a retry).
    package var failure: JobFailure?
    /// When a retried job runs again.
    package var runAt: Int64?
    /// The reason in the history.
    package var reason: String
    /// Whether the attempt counts among the job's attempts: all but a snooze, which the store
    /// takes back (as it does a released attempt).
    package var countsAttempt = true

    package init(_ outcome: AttemptOutcome, attempts: Int, maxAttempts: Int?, progressedAttempts: Int, cancelRequested: Bool, now: Int64) {
        switch outcome {
        case .succeeded(let value):
            (state, output, failure, runAt, reason) = (.succeeded, value, nil, nil, "succeeded")
        case .failed(let error):
            (state, output, failure, runAt, reason) = (.failed, nil, error, nil, error.description)
        case .retry(let error, let delay):
            let at = now + max(0, delay)
            let exhausted = maxAttempts.map { attempts - progressedAttempts >= $0 } ?? false
            (state, output, failure) = (exhausted ? .failed : (at > now ? .scheduled : .pending), nil, error)
            runAt = exhausted ? nil : at
            reason = exhausted ? "\(error) (no attempts left)" : "\(error) (will retry)"
        case .cancelled(let why):
            (state, output, failure, runAt, reason) = (.cancelled, nil, nil, nil, why)
        case .snoozed(let delay):
            let at = now + max(0, delay)
            (state, output, failure, runAt) = (at > now ? .scheduled : .pending, nil, nil, at)
            reason = "snoozed for \(HistoryNote.delay(milliseconds: max(0, at - now)))"
            countsAttempt = false
        case .sleeping(let until):
            (state, output, failure, runAt) = (until > now ? .scheduled : .pending, nil, nil, until)
            reason = "sleeping for \(HistoryNote.delay(milliseconds: max(0, until - now))) (durable sleep)"
            countsAttempt = false
        case .parked(let error):
            (state, output, failure, runAt, reason) = (.parked, nil, error, nil, "parked: \(error.message)")
            countsAttempt = false
        }
        if cancelRequested && state != .cancelled {
            // Even over a handler that ignored the cancel and returned.
            (state, output, runAt) = (.cancelled, nil, nil)
            reason = "cancel requested; attempt ended with: \(reason)"
        }
    }

    /// This ending with `note` added to its reason if it ends the job (a terminal state): the
    /// recorded steps its attempt never asked for are worth knowing once, when the job is done.
    package func noting(_ note: String?) -> ResolvedEnding {
        guard let note, state.isTerminal else { return self }
        var ending = self
        ending.reason += "; " + note
        return ending
    }

    /// The history note of an ending whose attempt the row no longer shows running under its owner
    /// (its lease expired and the job was recovered, perhaps run again): the ending is discarded.
    package static func discardedNote(_ outcome: AttemptOutcome, attempt: Int) -> String {
        let ending =
            switch outcome {
            case .succeeded: "returned a result"
            case .failed, .retry: "failed"
            case .cancelled: "stopped"
            case .snoozed: "snoozed"
            case .sleeping: "went to sleep"
            case .parked: "could not read its input"
            }
        return "attempt \(attempt) \(ending) after its worker lost the job; discarded"
    }
}
