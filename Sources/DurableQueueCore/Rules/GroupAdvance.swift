/// What a running sequence or concurrent group does next: the one rule both stores apply whenever
/// a child of it ends, or it starts.
///
/// A store reads only the children that decide it, in stages the rule names:
/// 1. A sequence: its first stopped step (``stoppedStates``). If there is one, every unfinished
///    child (``unfinishedStates``) is cancelled (``cancelReason(sequence:)``); once none is left,
///    the sequence ends as ``sequenceEnd(stoppedBy:)`` says.
/// 2. Otherwise: how many children are active (``activeStates``), then the next
///    ``blockedToRead(kind:maxConcurrent:active:)`` blocked ones, by position; ``next(kind:active:blocked:)``
///    decides.
/// 3. ``Step/end``: every child, for ``outcome(kind:children:)`` and the output object;
///    ``finalState(_:cancelRequested:)`` is the state written.
package enum GroupAdvance {
    /// What to do once the active count and the next blocked children are known.
    package enum Step: Sendable, Hashable {
        /// Nothing: a child is still active, or the group waits for room.
        case wait
        /// Start these children; a sequence's step takes the output of the child at
        /// `previousOutputAt` as its input when it asked for it.
        case start([GroupChild], previousOutputAt: Int?)
        /// Every child has ended: the group ends as ``outcome(kind:children:)`` says.
        case end
    }

    /// A child that did not succeed: it stops a sequence.
    package static let stoppedStates: [JobState] = [.failed, .cancelled]
    /// A child that has not ended: blocked (not started), active, or parked (until a retry or a cancel).
    package static let unfinishedStates: [JobState] = [.blocked, .scheduled, .pending, .running, .handedOff, .waiting, .parked]
    /// A child started and not yet ended (``GroupChild/isActive``).
    package static let activeStates: [JobState] = [.scheduled, .pending, .running]

    /// Why the unfinished steps of a sequence are cancelled once one of its steps stopped it.
    package static func cancelReason(sequence id: GroupID) -> String {
        "an earlier step of sequence \(id) did not succeed"
    }

    /// How a sequence ends when `step` (failed or cancelled) stopped it and nothing in it runs.
    package static func sequenceEnd(stoppedBy step: GroupChild) -> (state: JobState, reason: String) {
        let what = step.name.map { "step '\($0)'" } ?? "step \(step.position + 1)"
        return (step.state == .failed ? .failed : .cancelled, "\(what) \(step.state.rawValue)")
    }

    /// How many blocked children to read, by position, once `active` children are known to run:
    /// a sequence's next step; a concurrent group's room under its limit (nil: no limit, all).
    package static func blockedToRead(kind: GroupKind, maxConcurrent: Int, active: Int) -> Int? {
        switch kind {
        case .sequence: 1
        case .concurrent: maxConcurrent > 0 ? max(0, maxConcurrent - active) : nil
        }
    }

    /// The decision, from the number of active children and the next blocked ones (as many as
    /// ``blockedToRead(kind:maxConcurrent:active:)`` said, in position order).
    package static func next(kind: GroupKind, active: Int, blocked: [GroupChild]) -> Step {
        guard let first = blocked.first else { return active == 0 ? .end : .wait }
        switch kind {
        case .sequence:
            guard active == 0 else { return .wait }
            return .start([first], previousOutputAt: first.position > 0 ? first.position - 1 : nil)
        case .concurrent:
            return .start(blocked, previousOutputAt: nil)
        }
    }

    /// The state and reason of a group all of whose `children` ended: a sequence reaches this only
    /// when every step succeeded; a concurrent group succeeded if every child did, else failed if
    /// one failed, else cancelled.
    package static func outcome(kind: GroupKind, children: [GroupChild]) -> (state: JobState, reason: String) {
        switch kind {
        case .sequence:
            return (.succeeded, "every step succeeded")
        case .concurrent:
            let state: JobState =
                children.allSatisfy { $0.state == .succeeded } ? .succeeded : children.contains { $0.state == .failed } ? .failed : .cancelled
            let failed = children.filter { $0.state != .succeeded }.count
            return (state, failed == 0 ? "every child succeeded" : "\(failed) of \(children.count) children did not succeed")
        }
    }

    /// What a group in `state` does once a cancel has reached every unfinished child: a group that
    /// never started (`blocked`) ends `cancelled` at once; a running one goes on as its children
    /// decide (it ends once nothing in it runs).
    package static func endsAtOnceWhenCancelled(_ state: JobState) -> Bool {
        state == .blocked
    }

    /// The state written when a group ends as `state`: a group whose cancel was requested ends
    /// `cancelled` unless it succeeded.
    package static func finalState(_ state: JobState, cancelRequested: Bool) -> JobState {
        cancelRequested && state != .succeeded ? .cancelled : state
    }
}
