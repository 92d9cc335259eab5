/// What a cancel request does to one job: the one rule both stores apply, to a job asked for by
/// id, by a bulk cancel, by a unique key's `replace`, or by its group or sequence.
package enum CancelRequest {
    /// The change a store writes (the job's row and its history row, in one transaction).
    package enum Change: Sendable, Hashable {
        /// Nothing: the job had finished, or its running attempt was flagged already.
        case none
        /// The job runs: its durable cancel flag is set (history: `running` → `running`); its
        /// worker stops it, and it never runs again whatever happens to that worker.
        case flag
        /// The job waits: it is `cancelled` now (history: its state → `cancelled`), and has ended.
        case cancel
    }

    /// The outcome reported and the change to write, for a job in `state` whose cancel flag is
    /// `cancelRequested`.
    package static func decide(state: JobState, cancelRequested: Bool) -> (outcome: CancelOutcome, change: Change) {
        if state.isTerminal { return (.alreadyFinished(state), .none) }
        if state == .running { return (.requested, cancelRequested ? .none : .flag) }
        return (.cancelled, .cancel)
    }
}
