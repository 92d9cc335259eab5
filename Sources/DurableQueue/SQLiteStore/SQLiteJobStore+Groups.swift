import Foundation

extension SQLiteJobStore {
    /// Inserts a sequence or concurrent group with every child, nested groups included, and starts
    /// it, in one transaction.
    ///
    /// - Throws: `invalidArgument` (nothing changed) or a storage error.
    package func enqueue(composition root: CompositionNode, now: Int64) throws -> GroupID {
        guard case .group = root else {
            throw DurableQueueError.invalidArgument("composition", "the outermost step must be a sequence or a group")
        }
        try root.validate()
        return try write("enqueue a sequence or group", now: now) { now in
            let id = try insertGroup(root, parent: nil, position: 0, now: now)
            try startGroup(id, now: now, reason: "enqueued")
            return id
        }
    }

    /// Cancels group `id` and every unfinished job and group in it, durably: waiting jobs at once,
    /// running ones through their cancel flag.
    ///
    /// - Returns: false if the group had already finished (nothing changed).
    /// - Throws: `groupNotFound`.
    package func cancel(group id: GroupID, now: Int64) throws -> Bool {
        try write("cancel group \(id)", now: now) { now in
            guard let group = try groupRow(id) else { throw DurableQueueError.groupNotFound(id) }
            if group.state.isTerminal { return false }
            try cancelTree(id, now: now, reason: "group \(id) cancelled")
            return true
        }
    }

    /// The group's current state.
    ///
    /// - Throws: `groupNotFound`.
    package func groupState(_ id: GroupID) throws -> JobState {
        try read("read group \(id)") {
            guard let group = try groupRow(id) else { throw DurableQueueError.groupNotFound(id) }
            return group.state
        }
    }

    /// The group with every child's state and output, nested groups included.
    ///
    /// - Throws: `groupNotFound`.
    package func groupResult(_ id: GroupID) throws -> GroupResult {
        try read("read group \(id)") { try result(of: id) }
    }

    /// The newest `limit` outermost sequences and groups, newest first, with their children counted.
    package func groups(limit: Int) throws -> [GroupSummary] {
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        return try read("list groups") {
            var groups: [GroupSummary] = []
            try connection.query(
                """
                SELECT g.id, g.kind, g.name, g.state,
                       (SELECT count(*) FROM jobs WHERE group_id = g.id) + (SELECT count(*) FROM groups WHERE parent_id = g.id),
                       (SELECT count(*) FROM jobs WHERE group_id = g.id AND state = 'succeeded')
                         + (SELECT count(*) FROM groups WHERE parent_id = g.id AND state = 'succeeded'),
                       g.created_at, g.finished_at, g.error
                FROM groups AS g WHERE g.parent_id IS NULL ORDER BY g.id DESC LIMIT ?
                """, [limit]
            ) { row in
                groups.append(
                    GroupSummary(
                        id: GroupID(row.int64(0)), kind: row.string(1), name: row.optionalString(2), state: try JobState(stored: row.string(3)),
                        children: Int(row.int64(4)), succeeded: Int(row.int64(5)), createdAt: row.int64(6),
                        finishedAt: row.optionalInt64(7), error: row.optionalString(8)))
            }
            return groups
        }
    }

    // MARK: - Inserting and starting

    private func insertGroup(_ node: CompositionNode, parent: GroupID?, position: Int, now: Int64) throws -> GroupID {
        guard case .group(let kind, let children, let maxConcurrent, let name) = node else {
            preconditionFailure("insertGroup is called with groups only")
        }
        var inserted: Int64?
        try connection.query(
            """
            INSERT INTO groups (kind, state, parent_id, position, name, max_concurrent, created_at, updated_at)
            VALUES (?, 'blocked', ?, ?, ?, ?, ?, ?) RETURNING id
            """, [kind.rawValue, parent?.rawValue, position, name, maxConcurrent, now, now]
        ) { row in inserted = row.int64(0) }
        guard let inserted else { throw DurableQueueError(.storage, "the group row was not inserted") }
        let id = GroupID(inserted)
        try appendGroupEvent(id, now: now, from: nil, to: .blocked, reason: "enqueued")
        for (index, child) in children.enumerated() {
            switch child {
            case .job(let job, let name, let takesPreviousOutput):
                _ = try insert(
                    job, now: now,
                    placement: GroupPlacement(group: id, position: index, name: name, takesPreviousOutput: takesPreviousOutput))
            case .group:
                _ = try insertGroup(child, parent: id, position: index, now: now)
            }
        }
        return id
    }

    private func startGroup(_ id: GroupID, now: Int64, reason: String) throws {
        try connection.execute(
            "UPDATE groups SET state = 'running', updated_at = ? WHERE id = ? AND state = 'blocked'", [now, id.rawValue])
        guard try connection.changes == 1 else { return }  // started already (an empty group ended at once)
        try appendGroupEvent(id, now: now, from: .blocked, to: .running, reason: reason)
        try advanceGroup(id, now: now)
    }

    /// Starts a blocked child: a job becomes pending (or scheduled), taking `previousOutput` as its
    /// input if it asked for it; a group starts its own children.
    ///
    /// The job's row is read first and then updated by id, as promotions do: one `UPDATE … RETURNING`
    /// (SQLite gathers the returned row in a temporary table) and a second one to number the
    /// history row cost more.
    private func start(_ child: GroupChild, of group: GroupID, previousOutput: String?, now: Int64) throws {
        let reason = "its turn in group \(group)"
        if let job = child.job {
            var blocked: (runAt: Int64, attempts: Int, eventCount: Int64)?
            try connection.query(
                "SELECT run_at, attempts, event_count FROM jobs WHERE id = ? AND state = 'blocked'", [job.rawValue]
            ) { row in blocked = (row.int64(0), Int(row.int64(1)), row.int64(2)) }
            guard let blocked else { return }  // started or ended already
            let state: JobState = blocked.runAt > now ? .scheduled : .pending
            try connection.execute(
                """
                UPDATE jobs SET state = ?2, input = CASE takes_previous_output WHEN 1 THEN coalesce(?3, 'null') ELSE input END,
                                updated_at = ?4, event_count = event_count + 1
                WHERE id = ?1
                """, [job.rawValue, state.rawValue, previousOutput, now])
            try appendEvents([
                EventRow(
                    job: job, at: now, from: .blocked, to: state, attempt: blocked.attempts, reason: reason, worker: nil,
                    seq: blocked.eventCount + 1)
            ])
        } else if let nested = child.group {
            try startGroup(nested, now: now, reason: reason)
        }
    }

    // MARK: - Advancing

    /// Starts what group `id` may start next, or ends it when its children decide its outcome;
    /// called when one of its children ended.
    ///
    /// Reads only the children that decide it (through idx_jobs_group_state): the first one that
    /// did not succeed, the active ones, the next blocked ones; every child only once, at the end.
    /// Reading all of them at each ending made a group of n jobs cost n² row reads.
    func advanceGroup(_ id: GroupID, now: Int64) throws {
        guard let group = try groupRow(id), group.state == .running else { return }
        if group.kind == .sequence, let stopped = try children(of: id, in: GroupAdvance.stoppedStates, limit: 1).first {
            for child in try children(of: id, in: GroupAdvance.unfinishedStates) {
                try cancelChild(child, now: now, reason: GroupAdvance.cancelReason(sequence: id))
            }
            // The sequence ends once nothing in it runs any more.
            guard try children(of: id, in: GroupAdvance.unfinishedStates, limit: 1).isEmpty else { return }
            let end = GroupAdvance.sequenceEnd(stoppedBy: stopped)
            // A sequence that did not succeed has no output object: no need for its children.
            return try self.end(id, as: end.state, children: [], now: now, reason: end.reason)
        }
        let active = try activeChildCount(of: id)
        let room = GroupAdvance.blockedToRead(kind: group.kind, maxConcurrent: group.maxConcurrent, active: active)
        let blocked = room == 0 ? [] : try children(of: id, in: [.blocked], limit: room)
        switch GroupAdvance.next(kind: group.kind, active: active, blocked: blocked) {
        case .wait:
            return
        case .start(let children, let previousOutputAt):
            let previousOutput = try previousOutputAt.flatMap { try output(of: id, at: $0) }
            for child in children { try start(child, of: id, previousOutput: previousOutput, now: now) }
        case .end:
            let children = try self.children(of: id)
            let outcome = GroupAdvance.outcome(kind: group.kind, children: children)
            try end(id, as: outcome.state, children: children, now: now, reason: outcome.reason)
        }
    }

    /// Records the group's end (with the children's outputs by name when it succeeded) and lets its
    /// parent go on.
    private func end(_ id: GroupID, as state: JobState, children: [GroupChild], now: Int64, reason: String) throws {
        guard let group = try groupRow(id), !group.state.isTerminal else { return }  // ended by a nested call
        let finalState = GroupAdvance.finalState(state, cancelRequested: group.cancelRequested)
        try connection.execute(
            """
            UPDATE groups SET state = ?2, output = ?3, error = ?4, finished_at = ?5, updated_at = ?5 WHERE id = ?1
            """,
            [id.rawValue, finalState.rawValue, finalState == .succeeded ? try GroupChild.outputObject(children) : nil,
             finalState == .succeeded ? nil : reason, now])
        try appendGroupEvent(id, now: now, from: group.state, to: finalState, reason: reason)
        if let parent = group.parent { try advanceGroup(parent, now: now) }
    }

    // MARK: - Retrying

    /// Puts back the children of finished group `id` that ``GroupRetry`` names (blocked, with fresh
    /// attempts, each change in the history), runs the group again and lets its rule start them, in
    /// one transaction.
    ///
    /// - Returns: The children changed, with their states after.
    /// - Throws: `groupNotFound`; what ``GroupRetry`` throws. Nothing changes when it throws.
    package func retryFailed(group id: GroupID, downstream: Bool, now: Int64) throws -> [JobID: JobState] {
        try write("retry the failed jobs of group \(id)", now: now) { now in
            guard let group = try groupRow(id) else { throw DurableQueueError.groupNotFound(id) }
            let again = try GroupRetry.children(
                toRetryIn: id, kind: group.kind, state: group.state, isNested: group.parent != nil, children: try children(of: id),
                downstream: downstream)
            guard !again.isEmpty else { return [:] }
            let reason = GroupRetry.reason(group: id)
            for job in again {
                guard let row = try stateRow(job) else { continue }
                try putBack(job, as: .blocked, now: now)
                try appendEvent(job, now: now, from: row.state, to: .blocked, attempt: 0, reason: reason)
            }
            try connection.execute(
                """
                UPDATE groups SET state = 'running', cancel_requested = 0, output = NULL, error = NULL, finished_at = NULL, updated_at = ?2
                WHERE id = ?1
                """, [id.rawValue, now])
            try appendGroupEvent(id, now: now, from: group.state, to: .running, reason: reason)
            try advanceGroup(id, now: now)
            var changed: [JobID: JobState] = [:]
            for job in again { changed[job] = try stateRow(job)?.state }
            return changed
        }
    }

    // MARK: - Cancelling

    /// Flags group `id` and cancels every unfinished child, nested groups included.
    private func cancelTree(_ id: GroupID, now: Int64, reason: String) throws {
        try connection.execute("UPDATE groups SET cancel_requested = 1, updated_at = ? WHERE id = ?", [now, id.rawValue])
        for child in try children(of: id) where !child.state.isTerminal {
            try cancelChild(child, now: now, reason: reason)
        }
        guard let group = try groupRow(id) else { return }
        if GroupAdvance.endsAtOnceWhenCancelled(group.state) {
            try end(id, as: .cancelled, children: [], now: now, reason: reason)
        } else {
            try advanceGroup(id, now: now)
        }
    }

    private func cancelChild(_ child: GroupChild, now: Int64, reason: String) throws {
        if let job = child.job {
            _ = try requestCancel(job, now: now, reason: reason)
        } else if let group = child.group {
            try cancelTree(group, now: now, reason: reason)
        }
    }

    // MARK: - Reading

    private func groupRow(_ id: GroupID) throws
        -> (kind: GroupKind, state: JobState, maxConcurrent: Int, cancelRequested: Bool, parent: GroupID?)?
    {
        var row: (GroupKind, JobState, Int, Bool, GroupID?)?
        try connection.query(
            "SELECT kind, state, max_concurrent, cancel_requested, parent_id FROM groups WHERE id = ?", [id.rawValue]
        ) { found in
            row = (
                GroupKind(rawValue: found.string(0)) ?? .sequence, try JobState(stored: found.string(1)), Int(found.int64(2)),
                found.int64(3) != 0, found.optionalInt64(4).map { GroupID($0) }
            )
        }
        return row
    }

    /// The jobs and groups directly in group `id`, in order.
    private func children(of id: GroupID) throws -> [GroupChild] {
        var children: [GroupChild] = []
        try connection.query(
            """
            SELECT group_position, id, NULL, step_name, state, output FROM jobs WHERE group_id = ?1
            UNION ALL
            SELECT position, NULL, id, name, state, output FROM groups WHERE parent_id = ?1
            ORDER BY 1
            """, [id.rawValue]
        ) { row in children.append(try Self.child(row)) }
        return children
    }

    /// A child as the reads of ``children(of:)`` and ``children(of:in:limit:)`` give it: position,
    /// job or group id, name, state, output.
    private static func child(_ row: SQLiteRow) throws -> GroupChild {
        GroupChild(
            position: Int(row.int64(0)), job: row.optionalInt64(1).map { JobID($0) }, group: row.optionalInt64(2).map { GroupID($0) },
            name: row.optionalString(3), state: try JobState(stored: row.string(4)), output: row.optionalString(5))
    }

    /// The children of group `id` in one of `states`, by position, at most `limit` of them:
    /// index searches of idx_jobs_group_state and idx_groups_parent, not a read of every child.
    private func children(of id: GroupID, in states: [JobState], limit: Int? = nil) throws -> [GroupChild] {
        var children: [GroupChild] = []
        let arguments: [(any SQLiteBindable)?] = [id.rawValue, limit ?? -1] + states.map(\.rawValue)
        let read = { (row: SQLiteRow) in children.append(try Self.child(row)) }
        try connection.query(Self.childJobsStatements[states.count - 1], arguments, row: read)
        try connection.query(Self.childGroupsStatements[states.count - 1], arguments, row: read)
        children.sort { $0.position < $1.position }
        return limit.map { Array(children.prefix($0)) } ?? children
    }

    /// The child jobs of group `?1` in one of `count` states (`?3`…), by position, at most `?2` of
    /// them (-1: all): a search of idx_jobs_group_state, in index order for one state.
    static func childJobsStatement(states count: Int) -> String {
        """
        SELECT group_position, id, NULL, step_name, state, output FROM jobs
        WHERE group_id = ?1 AND state IN (\(statePlaceholders(count))) ORDER BY group_position LIMIT ?2
        """
    }

    /// ``childJobsStatement(states:)`` for the child groups (a search of idx_groups_parent).
    static func childGroupsStatement(states count: Int) -> String {
        """
        SELECT position, NULL, id, name, state, output FROM groups
        WHERE parent_id = ?1 AND state IN (\(statePlaceholders(count))) ORDER BY position LIMIT ?2
        """
    }

    /// ``childJobsStatement(states:)`` and ``childGroupsStatement(states:)`` for 1 … 5 states (as many as a group has unfinished ones), at
    /// the index one less than the count: built once, not at every ending.
    private static let childJobsStatements = (1...GroupAdvance.unfinishedStates.count).map { childJobsStatement(states: $0) }
    private static let childGroupsStatements = (1...GroupAdvance.unfinishedStates.count).map { childGroupsStatement(states: $0) }

    /// How many children of group `id` are active, counted in the indexes without reading a row:
    /// reading the active children of a group running 16 at a time cost every ending 140,000
    /// instructions.
    private func activeChildCount(of id: GroupID) throws -> Int {
        Int(try connection.scalarInt64(Self.activeChildCountStatement, [id.rawValue]) ?? 0)
    }

    /// The number of active children (jobs and groups: scheduled, pending or running, as
    /// ``GroupChild/isActive``) of group `?1`.
    static let activeChildCountStatement = """
        SELECT (SELECT count(*) FROM jobs WHERE group_id = ?1 AND state IN ('scheduled', 'pending', 'running'))
             + (SELECT count(*) FROM groups WHERE parent_id = ?1 AND state IN ('scheduled', 'pending', 'running'))
        """

    /// `?3, ?4, …`: the parameters of `count` states.
    private static func statePlaceholders(_ count: Int) -> String {
        (0..<count).map { "?\($0 + 3)" }.joined(separator: ", ")
    }

    /// The output of the child of group `id` at `position` (ended: its output is final).
    private func output(of id: GroupID, at position: Int) throws -> String? {
        var output: String?
        try connection.query(
            """
            SELECT output FROM jobs WHERE group_id = ?1 AND state IN ('succeeded', 'failed', 'cancelled') AND group_position = ?2
            UNION ALL
            SELECT output FROM groups WHERE parent_id = ?1 AND position = ?2
            """, [id.rawValue, position]
        ) { row in output = row.optionalString(0) }
        return output
    }

    private func result(of id: GroupID) throws -> GroupResult {
        var row: (name: String?, state: JobState, error: String?, output: String?)?
        try connection.query("SELECT name, state, error, output FROM groups WHERE id = ?", [id.rawValue]) { found in
            row = (found.optionalString(0), try JobState(stored: found.string(1)), found.optionalString(2), found.optionalString(3))
        }
        guard let row else { throw DurableQueueError.groupNotFound(id) }
        var errors: [JobID: JobFailure] = [:]
        try connection.query("SELECT id, error FROM jobs WHERE group_id = ? AND error IS NOT NULL", [id.rawValue]) { found in
            errors[JobID(found.int64(0))] = try? JSONDecoder().decode(JobFailure.self, from: Data(found.string(1).utf8))
        }
        let children = try self.children(of: id).map { child in
            let content: GroupResult.Child.Content =
                if let job = child.job {
                    .job(job, error: errors[job])
                } else {
                    .group(try result(of: child.group ?? id))
                }
            return GroupResult.Child(
                name: child.name, position: child.position, state: child.state, content: content, output: child.job == nil ? nil : child.output)
        }
        return GroupResult(id: id, name: row.name, state: row.state, reason: row.error, output: row.output, children: children)
    }

    private func appendGroupEvent(_ id: GroupID, now: Int64, from: JobState?, to: JobState, reason: String) throws {
        try connection.execute(
            "INSERT INTO group_events (group_id, at, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?)",
            [id.rawValue, now, from?.rawValue, to.rawValue, reason])
    }
}
