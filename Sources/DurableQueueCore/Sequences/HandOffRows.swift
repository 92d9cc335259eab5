/// The row operations that ``HandOffSequences`` runs on (beside ``SignalRows/endingRow(_:)``,
/// which reads a job as an ending does). Each reads or writes rows inside the transaction under way
/// and decides nothing.
package protocol HandOffRows: Sendable {
    /// Moves `attempt`, which `owner` runs (`row`), to `state` (`handed_off`, or `cancelled` when a
    /// cancel was requested) with `target` in its row and no lease, finished if `state` is
    /// terminal, with its history row (`reason`).
    func handOff(
        _ attempt: AttemptID, owner: String, row: (row: EndingRow, historyCount: Int64), as state: JobState, to target: HandOffTarget,
        now: Int64, reason: String
    ) async throws
    /// Records `ending` of handed-off `attempt` (`row`): its state, output or error, run time and
    /// finish time, the attempt taken back when it does not count, with its history row from
    /// `handed_off` (`reporter` its worker).
    func recordHandOffEnding(
        _ ending: ResolvedEnding, of attempt: AttemptID, reporter: String, row: (row: EndingRow, historyCount: Int64), now: Int64
    ) async throws
    /// Appends a history row to job `row` that changes nothing (a refused report), `reporter` its worker.
    func noteUnchanged(_ row: (row: EndingRow, historyCount: Int64), attempt: Int, reporter: String, now: Int64, reason: String)
        async throws
}
