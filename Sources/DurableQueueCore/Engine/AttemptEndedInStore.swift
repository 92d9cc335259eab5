/// Thrown out of a handler whose attempt the store ended already, in the transaction of what ended
/// it: a hand-off (``JobContext/handOff(to:reference:deadline:start:)``) or a wait for a signal that
/// has not come (``JobContext/waitForSignal(_:as:timeout:)``). The job is in `state` now.
struct AttemptEndedInStore: Error, CustomStringConvertible {
    let state: JobState
    var description: String { "the attempt ended: the job is \(state.rawValue)" }
}
