import DurableQueue
import Foundation

extension PostgresJobStore {
    /// The group's current state.
    package func groupState(_ id: GroupID) async throws -> JobState {
        try await read("read group \(id)") { [self] session in
            guard let group = try await groupRow(session, id, locking: false) else { throw DurableQueueError.groupNotFound(id) }
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

    // MARK: - Reading

    /// Group `id`'s row; with `lock`, locked until the transaction ends.
    func groupRow(_ session: PostgresSession, _ id: GroupID, locking lock: Bool) async throws -> GroupRow? {
        guard
            let row = try await session.rows(
                "SELECT kind, state, max_concurrent, cancel_requested, parent_id FROM groups WHERE id = $1" + (lock ? " FOR NO KEY UPDATE" : ""),
                [id.rawValue]
            ).first
        else { return nil }
        return GroupRow(
            kind: GroupKind(rawValue: try row.string(0)) ?? .sequence, state: try JobState(stored: row.string(1)),
            maxConcurrent: try row.int(2), cancelRequested: try row.bool(3), parent: try row.optionalInt64(4).map { GroupID($0) })
    }

    /// The jobs and groups directly in group `id`, in order.
    func children(_ session: PostgresSession, of id: GroupID) async throws -> [GroupChild] {
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
    func children(_ session: PostgresSession, of id: GroupID, in states: [JobState], limit: Int? = nil) async throws
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
    func output(_ session: PostgresSession, of id: GroupID, at position: Int) async throws -> String? {
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

    func appendGroupEvent(_ session: PostgresSession, _ id: GroupID, now: Int64, from: JobState?, to: JobState, reason: String)
        async throws
    {
        try await session.execute(
            "INSERT INTO group_events (group_id, at, from_state, to_state, reason) VALUES ($1, $2, $3, $4, $5)",
            [id.rawValue, now, from?.rawValue, to.rawValue, reason])
    }
}
