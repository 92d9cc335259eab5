/// Which children of a finished sequence or concurrent group a retry of what failed puts back: the
/// one rule both stores apply (``JobQueue/Jobs/retryFailed(in:downstream:)``).
package enum GroupRetry {
    /// The children to put back (`blocked`, to be started by the group's own rule), for group `id`
    /// of `kind`, in `state`, whose `children` are read in position order.
    ///
    /// A sequence starts again at its first step that did not succeed — if it failed, or with
    /// `downstream` if it was cancelled — and runs every step after it (they never ran). A concurrent
    /// group runs its failed children again, and with `downstream` its cancelled ones too.
    ///
    /// - Throws: `invalidArgument` for a group that has not ended failed or cancelled, a group nested
    ///   in another (retry the outermost), or one that holds groups.
    package static func children(
        toRetryIn id: GroupID, kind: GroupKind, state: JobState, isNested: Bool, children: [GroupChild], downstream: Bool
    ) throws -> [JobID] {
        guard state == .failed || state == .cancelled else {
            throw DurableQueueError.invalidArgument("group", "only a failed or cancelled group can be retried; group \(id) is \(state.rawValue)")
        }
        guard !isNested else { throw DurableQueueError.invalidArgument("group", "group \(id) is part of another group: retry the outermost one") }
        guard children.allSatisfy({ $0.job != nil }) else {
            throw DurableQueueError.invalidArgument("group", "group \(id) holds groups: only groups of jobs can be retried")
        }
        switch kind {
        case .sequence:
            guard let stopped = children.first(where: { $0.state != .succeeded }),
                stopped.state == .failed || (downstream && stopped.state == .cancelled)
            else { return [] }
            return children.filter { $0.position >= stopped.position }.compactMap(\.job)
        case .concurrent:
            return children.filter { $0.state == .failed || (downstream && $0.state == .cancelled) }.compactMap(\.job)
        }
    }

    /// The history reason of a job or group a group retry changed.
    package static func reason(group id: GroupID) -> String {
        "retry of the failed jobs of group \(id)"
    }
}
