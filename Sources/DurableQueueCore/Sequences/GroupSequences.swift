/// What happens to sequences and concurrent groups, written once for every store over its
/// ``GroupRows``: inserting and starting one, advancing it when a child ends, ending it,
/// cancelling a tree, and running its failed children again. The decisions are
/// ``GroupAdvance``'s and ``GroupRetry``'s; each function runs inside the caller's transaction.
package enum GroupSequences {
    /// Inserts the sequence or group `root` with every child, nested groups included, and starts it.
    package static func enqueue(_ root: CompositionNode, in rows: some StoreRows, now: Int64) async throws -> GroupID {
        let id = try await insert(root, parent: nil, position: 0, in: rows, now: now)
        try await start(group: id, in: rows, now: now, reason: "enqueued")
        return id
    }

    /// Cancels group `id` and everything unfinished in it: waiting jobs at once, running ones
    /// through their cancel flag; false if it had finished.
    ///
    /// - Throws: `groupNotFound`.
    package static func cancel(group id: GroupID, in rows: some StoreRows, now: Int64) async throws -> Bool {
        guard let group = try await rows.group(id, locking: true) else { throw DurableQueueError.groupNotFound(id) }
        if group.state.isTerminal { return false }
        try await cancelTree(id, in: rows, now: now, reason: "group \(id) cancelled")
        return true
    }

    /// Starts what group `id` may start next, or ends it when its children decide its outcome;
    /// called when one of its children ended. The group's row is locked first.
    ///
    /// Reads only the children that decide it (through an index of children by state): the first
    /// one that did not succeed, the active ones, the next blocked ones; every child only once, at
    /// the end. Reading all of them at each ending made a group of n jobs cost n² row reads.
    package static func advance(_ id: GroupID, in rows: some StoreRows, now: Int64) async throws {
        guard let group = try await rows.group(id, locking: true), group.state == .running else { return }
        if group.kind == .sequence,
            let stopped = try await rows.children(of: id, in: GroupAdvance.stoppedStates, limit: 1).first
        {
            for child in try await rows.children(of: id, in: GroupAdvance.unfinishedStates, limit: nil) {
                try await cancel(child, in: rows, now: now, reason: GroupAdvance.cancelReason(sequence: id))
            }
            // The sequence ends once nothing in it runs any more.
            guard try await rows.children(of: id, in: GroupAdvance.unfinishedStates, limit: 1).isEmpty else { return }
            let end = GroupAdvance.sequenceEnd(stoppedBy: stopped)
            // A sequence that did not succeed has no output object: no need for its children.
            return try await self.end(id, as: end.state, children: [], in: rows, now: now, reason: end.reason)
        }
        let active = try await rows.activeChildCount(of: id)
        let room = GroupAdvance.blockedToRead(kind: group.kind, maxConcurrent: group.maxConcurrent, active: active)
        let blocked = room == 0 ? [] : try await rows.children(of: id, in: [.blocked], limit: room)
        switch GroupAdvance.next(kind: group.kind, active: active, blocked: blocked) {
        case .wait:
            return
        case .start(let children, let previousOutputAt):
            var previousOutput: String?
            if let previousOutputAt { previousOutput = try await rows.output(of: id, childAt: previousOutputAt) }
            for child in children { try await start(child, of: id, previousOutput: previousOutput, in: rows, now: now) }
        case .end:
            let children = try await rows.children(of: id)
            let outcome = GroupAdvance.outcome(kind: group.kind, children: children)
            try await end(id, as: outcome.state, children: children, in: rows, now: now, reason: outcome.reason)
        }
    }

    /// Puts back the children of finished group `id` that ``GroupRetry`` names (blocked, with fresh
    /// attempts, each change in the history, in id order), runs the group again and lets its rule
    /// start them (the group's row locked first).
    ///
    /// - Returns: The children changed, with their states after.
    /// - Throws: `groupNotFound`; what ``GroupRetry`` throws, before anything changed.
    package static func retryFailed(group id: GroupID, downstream: Bool, in rows: some StoreRows, now: Int64) async throws
        -> [JobID: JobState]
    {
        guard let group = try await rows.group(id, locking: true) else { throw DurableQueueError.groupNotFound(id) }
        let again = try GroupRetry.children(
            toRetryIn: id, kind: group.kind, state: group.state, isNested: group.parent != nil,
            children: try await rows.children(of: id), downstream: downstream)
        guard !again.isEmpty else { return [:] }
        let reason = GroupRetry.reason(group: id)
        for job in again.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let row = try await rows.retryRow(job) else { continue }
            try await rows.putBack(job, from: row.state, as: .blocked, now: now, reason: reason)
        }
        try await rows.reopenGroupRow(id, from: group.state, now: now, reason: reason)
        try await advance(id, in: rows, now: now)
        var changed: [JobID: JobState] = [:]
        for job in again { changed[job] = try await rows.currentState(of: job) }
        return changed
    }

    // MARK: - Inserting and starting

    private static func insert(_ node: CompositionNode, parent: GroupID?, position: Int, in rows: some StoreRows, now: Int64)
        async throws -> GroupID
    {
        guard case .group(let kind, let children, let maxConcurrent, let name) = node else {
            preconditionFailure("insert(_:parent:position:in:now:) is called with groups only")
        }
        let id = try await rows.insertGroup(kind, parent: parent, position: position, name: name, maxConcurrent: maxConcurrent, now: now)
        for (index, child) in children.enumerated() {
            switch child {
            case .job(let job, let name, let takesPreviousOutput):
                try await rows.insertJob(
                    job, placement: GroupPlacement(group: id, position: index, name: name, takesPreviousOutput: takesPreviousOutput),
                    now: now)
            case .group:
                _ = try await insert(child, parent: id, position: index, in: rows, now: now)
            }
        }
        return id
    }

    private static func start(group id: GroupID, in rows: some StoreRows, now: Int64, reason: String) async throws {
        // Started already: an empty group ended at once.
        guard try await rows.startGroupRow(id, now: now, reason: reason) else { return }
        try await advance(id, in: rows, now: now)
    }

    /// Starts a blocked child: a job becomes pending (or scheduled), taking `previousOutput` as its
    /// input if it asked for it; a group starts its own children.
    private static func start(_ child: GroupChild, of group: GroupID, previousOutput: String?, in rows: some StoreRows, now: Int64)
        async throws
    {
        let reason = "its turn in group \(group)"
        if let job = child.job {
            try await rows.startBlockedJob(job, previousOutput: previousOutput, now: now, reason: reason)
        } else if let nested = child.group {
            try await start(group: nested, in: rows, now: now, reason: reason)
        }
    }

    // MARK: - Ending and cancelling

    /// Records the group's end (with the children's outputs by name when it succeeded) and lets its
    /// parent go on.
    private static func end(
        _ id: GroupID, as state: JobState, children: [GroupChild], in rows: some StoreRows, now: Int64, reason: String
    ) async throws {
        // Ended already by a nested call.
        guard let group = try await rows.group(id, locking: true), !group.state.isTerminal else { return }
        let finalState = GroupAdvance.finalState(state, cancelRequested: group.cancelRequested)
        try await rows.endGroupRow(
            id, from: group.state, as: finalState, output: finalState == .succeeded ? try GroupChild.outputObject(children) : nil,
            error: finalState == .succeeded ? nil : reason, now: now, reason: reason)
        if let parent = group.parent { try await advance(parent, in: rows, now: now) }
    }

    /// Flags group `id` and cancels every unfinished child, nested groups included.
    private static func cancelTree(_ id: GroupID, in rows: some StoreRows, now: Int64, reason: String) async throws {
        try await rows.flagGroupCancelRequested(id, now: now)
        for child in try await rows.children(of: id) where !child.state.isTerminal {
            try await cancel(child, in: rows, now: now, reason: reason)
        }
        guard let group = try await rows.group(id, locking: true) else { return }
        if GroupAdvance.endsAtOnceWhenCancelled(group.state) {
            try await end(id, as: .cancelled, children: [], in: rows, now: now, reason: reason)
        } else {
            try await advance(id, in: rows, now: now)
        }
    }

    private static func cancel(_ child: GroupChild, in rows: some StoreRows, now: Int64, reason: String) async throws {
        if let job = child.job {
            _ = try await CancelSequences.requestCancel(job, reason: reason, in: rows, now: now)
        } else if let group = child.group {
            try await cancelTree(group, in: rows, now: now, reason: reason)
        }
    }
}
