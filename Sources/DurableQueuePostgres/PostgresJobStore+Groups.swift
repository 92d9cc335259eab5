import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Inserts a sequence or group with every child, nested groups included, and starts it.
    package func enqueue(composition root: CompositionNode, now: Int64) async throws -> GroupID {
        guard case .group = root else {
            throw DurableQueueError.invalidArgument("composition", "the outermost step must be a sequence or a group")
        }
        try root.validate()
        return try await write("enqueue a sequence or group", now: now) { [self] session, now in
            let id = try await insertGroup(session, root, parent: nil, position: 0, now: now)
            try await startGroup(session, id, now: now, reason: "enqueued")
            return id
        }
    }

    /// Cancels group `id` and everything unfinished in it; false if it had finished.
    package func cancel(group id: GroupID, now: Int64) async throws -> Bool {
        try await write("cancel group \(id)", now: now) { [self] session, now in
            guard let group = try await groupRow(session, id, lock: true) else { throw DurableQueueError.groupNotFound(id) }
            if group.state.isTerminal { return false }
            try await cancelTree(session, id, now: now, reason: "group \(id) cancelled")
            return true
        }
    }

    /// The group's current state.
    package func groupState(_ id: GroupID) async throws -> JobState {
        try await read("read group \(id)") { [self] session in
            guard let group = try await groupRow(session, id, lock: false) else { throw DurableQueueError.groupNotFound(id) }
            return group.state
        }
    }

    /// The group with every child's state and output, nested groups included.
    package func groupResult(_ id: GroupID) async throws -> GroupResult {
        try await read("read group \(id)") { [self] session in try await result(session, of: id) }
    }

    /// The newest `limit` outermost sequences and groups, newest first, with their children counted.
    package func groups(limit: Int) async throws -> [GroupSummary] {
        guard limit > 0 else { throw DurableQueueError.invalidArgument("limit", "\(limit) is not positive") }
        return try await read("list groups") { session in
            try await session.rows(
                """
                SELECT g.id, g.kind, g.name, g.state,
                       (SELECT count(*) FROM jobs WHERE group_id = g.id) + (SELECT count(*) FROM groups WHERE parent_id = g.id),
                       (SELECT count(*) FROM jobs WHERE group_id = g.id AND state = 'succeeded')
                         + (SELECT count(*) FROM groups WHERE parent_id = g.id AND state = 'succeeded'),
                       g.created_at, g.finished_at, g.error
                FROM groups AS g WHERE g.parent_id IS NULL ORDER BY g.id DESC LIMIT $1
                """, [limit]
            ).map { row in
                GroupSummary(
                    id: GroupID(try row.int64(0)), kind: try row.string(1), name: try row.optionalString(2),
                    state: try JobState(stored: row.string(3)), children: try row.int(4), succeeded: try row.int(5),
                    createdAt: try row.int64(6), finishedAt: try row.optionalInt64(7), error: try row.optionalString(8))
            }
        }
    }

    // MARK: - Inserting and starting

    private func insertGroup(_ session: PostgresSession, _ node: CompositionNode, parent: GroupID?, position: Int, now: Int64) async throws
        -> GroupID
    {
        guard case .group(let kind, let children, let maxConcurrent, let name) = node else {
            preconditionFailure("insertGroup is called with groups only")
        }
        guard
            let inserted = try await session.int64(
                """
                INSERT INTO groups (kind, state, parent_id, position, name, max_concurrent, created_at, updated_at)
                VALUES ($1, 'blocked', $2, $3, $4, $5, $6, $6) RETURNING id
                """, [kind.rawValue, parent?.rawValue, position, name, maxConcurrent, now])
        else { throw DurableQueueError(.storage, "the group row was not inserted") }
        let id = GroupID(inserted)
        try await appendGroupEvent(session, id, now: now, from: nil, to: .blocked, reason: "enqueued")
        for (index, child) in children.enumerated() {
            switch child {
            case .job(let job, let name, let takesPreviousOutput):
                _ = try await insert(
                    session, job, now: now,
                    placement: GroupPlacement(group: id, position: index, name: name, takesPreviousOutput: takesPreviousOutput))
            case .group:
                _ = try await insertGroup(session, child, parent: id, position: index, now: now)
            }
        }
        return id
    }

    private func startGroup(_ session: PostgresSession, _ id: GroupID, now: Int64, reason: String) async throws {
        let changed = try await session.execute(
            "UPDATE groups SET state = 'running', updated_at = $1 WHERE id = $2 AND state = 'blocked'", [now, id.rawValue])
        guard changed == 1 else { return }  // started already (an empty group ended at once)
        try await appendGroupEvent(session, id, now: now, from: .blocked, to: .running, reason: reason)
        try await advanceGroup(session, id, now: now)
    }

    /// Starts a blocked child: a job becomes pending (or scheduled), taking `previousOutput` as its
    /// input if it asked for it; a group starts its own children.
    private func start(_ session: PostgresSession, _ child: GroupChild, of group: GroupID, previousOutput: String?, now: Int64) async throws {
        let reason = "its turn in group \(group)"
        if let job = child.job {
            if let row = try await session.rows(
                """
                UPDATE jobs SET state = CASE WHEN run_at > $2 THEN 'scheduled' ELSE 'pending' END,
                                input = CASE takes_previous_output WHEN 1 THEN coalesce($3::jsonb, 'null'::jsonb) ELSE input END,
                                updated_at = $2
                WHERE id = $1 AND state = 'blocked'
                RETURNING state, attempts
                """, [job.rawValue, now, previousOutput]
            ).first {
                try await appendEvent(session, job, now: now, from: .blocked, to: try JobState(stored: row.string(0)), attempt: try row.int(1), reason: reason)
            }
        } else if let nested = child.group {
            try await startGroup(session, nested, now: now, reason: reason)
        }
    }

    // MARK: - Advancing

    /// Starts what group `id` may start next, or ends it when its children decide its outcome;
    /// called when one of its children ended. The group's row is locked first, so that two nodes
    /// ending two children at once take turns and the second sees the first's change.
    ///
    /// Reads only the children that decide it (through idx_jobs_group_state): the first one that
    /// did not succeed, the active ones, the next blocked ones; every child only once, at the end.
    /// Reading all of them at each ending made a group of n jobs cost n² row reads.
    func advanceGroup(_ session: PostgresSession, _ id: GroupID, now: Int64) async throws {
        guard let group = try await groupRow(session, id, lock: true), group.state == .running else { return }
        if group.kind == .sequence, let stopped = try await children(session, of: id, in: GroupAdvance.stoppedStates, limit: 1).first {
            for child in try await children(session, of: id, in: GroupAdvance.unfinishedStates) {
                try await cancelChild(session, child, now: now, reason: GroupAdvance.cancelReason(sequence: id))
            }
            // The sequence ends once nothing in it runs any more.
            guard try await children(session, of: id, in: GroupAdvance.unfinishedStates, limit: 1).isEmpty else { return }
            let end = GroupAdvance.sequenceEnd(stoppedBy: stopped)
            // A sequence that did not succeed has no output object: no need for its children.
            return try await self.end(session, id, as: end.state, children: [], now: now, reason: end.reason)
        }
        let active = try await children(session, of: id, in: GroupAdvance.activeStates).count
        let room = GroupAdvance.blockedToRead(kind: group.kind, maxConcurrent: group.maxConcurrent, active: active)
        let blocked = room == 0 ? [] : try await children(session, of: id, in: [.blocked], limit: room)
        switch GroupAdvance.next(kind: group.kind, active: active, blocked: blocked) {
        case .wait:
            return
        case .start(let children, let previousOutputAt):
            var previousOutput: String?
            if let previousOutputAt { previousOutput = try await output(session, of: id, at: previousOutputAt) }
            for child in children { try await start(session, child, of: id, previousOutput: previousOutput, now: now) }
        case .end:
            let children = try await self.children(session, of: id)
            let outcome = GroupAdvance.outcome(kind: group.kind, children: children)
            try await end(session, id, as: outcome.state, children: children, now: now, reason: outcome.reason)
        }
    }

    /// Records the group's end (with the children's outputs by name when it succeeded) and lets its
    /// parent go on.
    private func end(_ session: PostgresSession, _ id: GroupID, as state: JobState, children: [GroupChild], now: Int64, reason: String)
        async throws
    {
        guard let group = try await groupRow(session, id, lock: true), !group.state.isTerminal else { return }
        let finalState = GroupAdvance.finalState(state, cancelRequested: group.cancelRequested)
        try await session.execute(
            """
            UPDATE groups SET state = $2, output = $3::jsonb, error = $4, finished_at = $5, updated_at = $5 WHERE id = $1
            """,
            [
                id.rawValue, finalState.rawValue, finalState == .succeeded ? try GroupChild.outputObject(children) : nil,
                finalState == .succeeded ? nil : reason, now,
            ])
        try await appendGroupEvent(session, id, now: now, from: group.state, to: finalState, reason: reason)
        if let parent = group.parent { try await advanceGroup(session, parent, now: now) }
    }

    // MARK: - Cancelling

    private func cancelTree(_ session: PostgresSession, _ id: GroupID, now: Int64, reason: String) async throws {
        try await session.execute("UPDATE groups SET cancel_requested = 1, updated_at = $1 WHERE id = $2", [now, id.rawValue])
        for child in try await children(session, of: id) where !child.state.isTerminal {
            try await cancelChild(session, child, now: now, reason: reason)
        }
        guard let group = try await groupRow(session, id, lock: true) else { return }
        if GroupAdvance.endsAtOnceWhenCancelled(group.state) {
            try await end(session, id, as: .cancelled, children: [], now: now, reason: reason)
        } else {
            try await advanceGroup(session, id, now: now)
        }
    }

    private func cancelChild(_ session: PostgresSession, _ child: GroupChild, now: Int64, reason: String) async throws {
        if let job = child.job {
            _ = try await requestCancel(session, job, now: now, reason: reason)
        } else if let group = child.group {
            try await cancelTree(session, group, now: now, reason: reason)
        }
    }

    // MARK: - Reading

    /// Puts back the children of finished group `id` that ``GroupRetry`` names (blocked, with fresh
    /// attempts, each change in the history), runs the group again and lets its rule start them, in
    /// one transaction (the group's row locked first).
    package func retryFailed(group id: GroupID, downstream: Bool, now: Int64) async throws -> [JobID: JobState] {
        try await write("retry the failed jobs of group \(id)", now: now) { [self] session, now in
            guard let group = try await groupRow(session, id, lock: true) else { throw DurableQueueError.groupNotFound(id) }
            let again = try GroupRetry.children(
                toRetryIn: id, kind: group.kind, state: group.state, isNested: group.parent != nil,
                children: try await children(session, of: id), downstream: downstream)
            guard !again.isEmpty else { return [:] }
            let reason = GroupRetry.reason(group: id)
            for job in again.sorted(by: { $0.rawValue < $1.rawValue }) {
                guard let row = try await stateRow(session, job, lock: true) else { continue }
                try await putBack(session, job, as: .blocked, now: now)
                try await appendEvent(session, job, now: now, from: row.state, to: .blocked, attempt: 0, reason: reason)
            }
            try await session.execute(
                """
                UPDATE groups SET state = 'running', cancel_requested = 0, output = NULL, error = NULL, finished_at = NULL, updated_at = $2
                WHERE id = $1
                """, [id.rawValue, now])
            try await appendGroupEvent(session, id, now: now, from: group.state, to: .running, reason: reason)
            try await advanceGroup(session, id, now: now)
            var changed: [JobID: JobState] = [:]
            for job in again { changed[job] = try await stateRow(session, job, lock: false)?.state }
            return changed
        }
    }

    private func groupRow(_ session: PostgresSession, _ id: GroupID, lock: Bool) async throws
        -> (kind: GroupKind, state: JobState, maxConcurrent: Int, cancelRequested: Bool, parent: GroupID?)?
    {
        guard
            let row = try await session.rows(
                "SELECT kind, state, max_concurrent, cancel_requested, parent_id FROM groups WHERE id = $1" + (lock ? " FOR UPDATE" : ""),
                [id.rawValue]
            ).first
        else { return nil }
        return (
            GroupKind(rawValue: try row.string(0)) ?? .sequence, try JobState(stored: row.string(1)), try row.int(2), try row.bool(3),
            try row.optionalInt64(4).map { GroupID($0) }
        )
    }

    /// The jobs and groups directly in group `id`, in order.
    private func children(_ session: PostgresSession, of id: GroupID) async throws -> [GroupChild] {
        try await session.rows(
            """
            SELECT group_position, id, NULL::bigint, step_name, state, output::text FROM jobs WHERE group_id = $1
            UNION ALL
            SELECT position, NULL::bigint, id, name, state, output::text FROM groups WHERE parent_id = $1
            ORDER BY 1
            """, [id.rawValue]
        ).map(Self.child)
    }

    /// The children of group `id` in one of `states`, by position, at most `limit` of them (nil:
    /// all): index searches of idx_jobs_group_state and idx_groups_parent, not a read of every child.
    private func children(_ session: PostgresSession, of id: GroupID, in states: [JobState], limit: Int? = nil) async throws
        -> [GroupChild]
    {
        // `$1` the group, `$2` the limit (NULL: none), the states from `$3` on.
        let placeholders = states.indices.map { "$\($0 + 3)" }.joined(separator: ", ")
        let values: [(any PostgresValue)?] = [id.rawValue, limit.map { Int64($0) }] + states.map(\.rawValue)
        let rows = try await session.rows(
            """
            (SELECT group_position, id, NULL::bigint, step_name, state, output::text FROM jobs
             WHERE group_id = $1 AND state IN (\(placeholders)) ORDER BY group_position LIMIT $2)
            UNION ALL
            (SELECT position, NULL::bigint, id, name, state, output::text FROM groups
             WHERE parent_id = $1 AND state IN (\(placeholders)) ORDER BY position LIMIT $2)
            ORDER BY 1 LIMIT $2
            """, values)
        return try rows.map(Self.child)
    }

    /// A child as the reads of `children(_:of:)` and `children(_:of:in:limit:)` give it: position,
    /// job or group id, name, state, output.
    private static func child(_ row: PostgresResultRow) throws -> GroupChild {
        GroupChild(
            position: try row.int(0), job: try row.optionalInt64(1).map { JobID($0) }, group: try row.optionalInt64(2).map { GroupID($0) },
            name: try row.optionalString(3), state: try JobState(stored: row.string(4)), output: try row.optionalString(5))
    }

    /// The output of the child of group `id` at `position` (ended: its output is final).
    private func output(_ session: PostgresSession, of id: GroupID, at position: Int) async throws -> String? {
        try await session.rows(
            """
            SELECT output::text FROM jobs
            WHERE group_id = $1 AND state IN ('succeeded', 'failed', 'cancelled') AND group_position = $2
            UNION ALL
            SELECT output::text FROM groups WHERE parent_id = $1 AND position = $2
            """, [id.rawValue, Int64(position)]
        ).first?.optionalString(0)
    }

    private func result(_ session: PostgresSession, of id: GroupID) async throws -> GroupResult {
        guard
            let row = try await session.rows("SELECT name, state, error, output::text FROM groups WHERE id = $1", [id.rawValue]).first
        else { throw DurableQueueError.groupNotFound(id) }
        var errors: [JobID: JobFailure] = [:]
        for found in try await session.rows(
            "SELECT id, error::text FROM jobs WHERE group_id = $1 AND error IS NOT NULL", [id.rawValue])
        {
            errors[JobID(try found.int64(0))] = Self.failure(try found.optionalString(1))
        }
        var children: [GroupResult.Child] = []
        for child in try await self.children(session, of: id) {
            let content: GroupResult.Child.Content =
                if let job = child.job {
                    .job(job, error: errors[job])
                } else {
                    .group(try await result(session, of: child.group ?? id))
                }
            children.append(
                GroupResult.Child(
                    name: child.name, position: child.position, state: child.state, content: content,
                    output: child.job == nil ? nil : child.output))
        }
        return GroupResult(
            id: id, name: try row.optionalString(0), state: try JobState(stored: row.string(1)), reason: try row.optionalString(2),
            output: try row.optionalString(3), children: children)
    }

    private func appendGroupEvent(_ session: PostgresSession, _ id: GroupID, now: Int64, from: JobState?, to: JobState, reason: String)
        async throws
    {
        try await session.execute(
            "INSERT INTO group_events (group_id, at, from_state, to_state, reason) VALUES ($1, $2, $3, $4, $5)",
            [id.rawValue, now, from?.rawValue, to.rawValue, reason])
    }
}
