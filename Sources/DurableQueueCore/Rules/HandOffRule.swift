/// The rules of attempts handed off to a carrier outside the process, which both stores apply:
/// what a hand-off does to a running job, which report from outside may end a handed-off one, and
/// the history's words for each.
package enum HandOffRule {
    /// The state a hand-off writes over a row that still shows the attempt running under its owner:
    /// `handed_off`, or `cancelled` when a cancel was requested meanwhile (then nothing may start).
    package static func state(cancelRequested: Bool) -> JobState { cancelRequested ? .cancelled : .handedOff }

    /// The history's reason for a hand-off to `target` that ended in `state`.
    package static func reason(_ target: HandOffTarget, state: JobState, now: Int64) -> String {
        guard state == .handedOff else { return "cancel requested before the hand-off to '\(target.carrier)'" }
        let deadline = target.deadline.map { " for up to \(HistoryNote.delay(milliseconds: max(0, $0 - now)))" } ?? ""
        return "handed off to '\(target.carrier)' as '\(target.reference)'\(deadline)"
    }

    /// The fence of a report from outside: the row (in `state`, at attempt `attempts`) still shows
    /// `attempt` handed off. A report for any other attempt — one that was taken back, timed out,
    /// cancelled, or overtaken by a later attempt — changes nothing but a history note.
    package static func isCurrent(_ attempt: AttemptID, state: JobState, attempts: Int) -> Bool {
        state == .handedOff && attempts == attempt.number
    }

    /// The history note of a report from outside for `attempt` that the row (in `state`, at attempt
    /// `current`) no longer shows handed off.
    package static func refusedNote(_ outcome: AttemptOutcome, attempt: Int, state: JobState, current: Int) -> String {
        let report =
            switch outcome {
            case .succeeded: "a result"
            case .failed, .retry: "a failure"
            case .cancelled: "a stop"
            case .snoozed, .sleeping: "a snooze"
            case .parked: "an unreadable input"
            }
        return "\(report) reported from outside for attempt \(attempt) refused: the job is \(state.rawValue) at attempt \(current)"
    }

    /// The history's reason for a handed-off attempt given back because its carrier no longer
    /// carries the transfer (it was lost with the process or the system's session).
    package static func givenBackReason(carrier: String, reference: String) -> String {
        "given back: '\(carrier)' no longer carries '\(reference)'"
    }

    /// What reconciling a carrier does: the handed-off attempts whose transfer the carrier no longer
    /// carries go back to `pending` without counting (`giveBack`), and the transfers the carrier
    /// carries for no current hand-off stop (`stop`: their job was cancelled, timed out, taken back,
    /// or finished).
    ///
    /// - Parameters:
    ///   - handedOff: The carrier's hand-offs, read before `carried`.
    ///   - stillHandedOff: The same, read again after `carried`: a transfer the carrier carries was
    ///     handed off before it was asked, so a hand-off missing here is one that ended.
    ///   - carried: The references the carrier carries.
    ///   - starting: Hand-offs committed in this process whose transfer is being started (asked for
    ///     after `carried`): the carrier may not know them yet, and they are not lost.
    package static func reconcile(
        handedOff: [HandedOffJob], stillHandedOff: [HandedOffJob], carried: Set<String>, starting: Set<AttemptID>
    ) -> (giveBack: [HandedOffJob], stop: Set<String>) {
        let giveBack = handedOff.filter { !carried.contains($0.reference) && !starting.contains($0.attempt) }
        return (giveBack, carried.subtracting(stillHandedOff.map(\.reference)))
    }
}
