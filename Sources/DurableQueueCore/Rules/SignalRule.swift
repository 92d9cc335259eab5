/// The rules of signals and of jobs waiting for one, which both stores apply: what a wait does to
/// a running job, what a signal does to a job, what a passed deadline does, how the outcome of a
/// wait is recorded, and the history's words for each.
///
/// Whatever ends a wait — its signal, or its timeout — is recorded as the job's step
/// `signal <name>` (``stepName(_:)``), so that every later attempt of the job gets the same answer.
package enum SignalRule {
    /// The step that records what the wait for signal `name` got.
    package static func stepName(_ name: String) -> String { "signal \(name)" }

    /// Whether `name` is a signal name: not empty.
    package static func isValid(name: String) -> Bool { !name.isEmpty }

    /// The recorded output of a wait that got `payload` (JSON text): `{"payload": …}`.
    package static func receivedOutput(payload: String) -> String { #"{"payload":"# + payload + "}" }

    /// The recorded output of a wait that timed out at `deadline`: `{"timedOut": deadline}`.
    package static func timedOutOutput(deadline: Int64) -> String { #"{"timedOut":"# + String(deadline) + "}" }

    /// The number of the attempt that waited, for a job waiting with `attempts` counted: a wait
    /// takes its attempt back (as a durable sleep, a snooze or a pause does), so the run after the
    /// wait has that number again, and a step recorded for the wait names it.
    package static func waitedAttempt(attempts: Int) -> Int { attempts + 1 }

    /// The state a wait writes over a row that still shows the attempt running under its owner:
    /// `waiting`, or `cancelled` when a cancel was requested meanwhile.
    package static func waitState(cancelRequested: Bool) -> JobState { cancelRequested ? .cancelled : .waiting }

    /// When a wait of `timeout` milliseconds (nil: none) recorded at `now`, its history row's time, times out.
    package static func deadline(timeout: Int64?, recordedAt now: Int64) -> Int64? { timeout.map { now + $0 } }

    /// The history's reason for a wait for signal `name` until `deadline` that left the job in `state`.
    package static func waitReason(_ name: String, deadline: Int64?, state: JobState, now: Int64) -> String {
        guard state == .waiting else { return "cancel requested before the wait for signal '\(name)'" }
        let timeout = deadline.map { " for up to \(HistoryNote.delay(milliseconds: max(0, $0 - now)))" } ?? ""
        return "waiting for signal '\(name)'\(timeout)"
    }

    /// What a signal named `name` does to a job in `state` that waits for `waitingFor` (the
    /// signal it waits for when `waiting`): whether it is kept at all, and whether it wakes the job.
    /// `alreadySent`: the job has a signal of that name already (a signal is sent once per name).
    package static func delivery(state: JobState, waitingFor: String?, name: String, alreadySent: Bool) -> SignalResult {
        if state.isTerminal { return .jobFinished(state) }
        if alreadySent { return .alreadySent }
        return state == .waiting && waitingFor == name ? .wokeJob : .kept
    }

    /// The history's reason for the signal `name` that woke a waiting job.
    package static func receivedReason(_ name: String) -> String { "signal '\(name)' received" }

    /// The history's reason for a waiting job whose wait for `name` passed its deadline.
    package static func timedOutReason(_ name: String) -> String { "the wait for signal '\(name)' timed out" }
}

/// What ``JobQueue/Jobs/signal(_:_:payload:)`` did.
public enum SignalResult: Sendable, Hashable {
    /// The job was waiting for this signal: it is `pending` now, and its wait returns the payload.
    case wokeJob
    /// The job is not waiting for this signal now: the signal is kept, and the job's wait for it
    /// returns it at once.
    case kept
    /// The job had a signal of that name already: a signal is sent once per job and name, so this
    /// one changed nothing.
    case alreadySent
    /// The job has finished (in this state): nothing was kept.
    case jobFinished(JobState)
}

extension SignalResult: CustomStringConvertible {
    /// What the signal did, in a word or two: `woke job`, `kept`, `already sent`, or `job` and the
    /// finished job's state (`job succeeded`), as the dashboard's JSON answer says it.
    public var description: String {
        switch self {
        case .wokeJob: "woke job"
        case .kept: "kept"
        case .alreadySent: "already sent"
        case .jobFinished(let state): "job \(state.rawValue)"
        }
    }
}

/// What a wait for a signal found, in the store's transaction that also wrote its outcome.
package enum SignalWait: Sendable, Hashable {
    /// The signal had come: its payload (JSON text), recorded as the wait's step.
    case received(payload: String)
    /// It had not: the attempt ended and the job is in this state (`waiting`, or `cancelled` when
    /// a cancel was requested first).
    case ended(JobState)
}
