import DurableQueueCore
import Foundation

extension SQLiteJobStore {
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

    // MARK: - Reading

    func groupRow(_ id: GroupID) throws -> GroupRow? {
        var row: GroupRow?
        try connection.query(
            "SELECT kind, state, max_concurrent, cancel_requested, parent_id FROM groups WHERE id = ?", [id.rawValue]
        ) { found in
            row = GroupRow(
                kind: GroupKind(rawValue: found.string(0)) ?? .sequence, state: try JobState(stored: found.string(1)),
                maxConcurrent: Int(found.int64(2)), cancelRequested: found.int64(3) != 0, parent: found.optionalInt64(4).map { GroupID($0) })
        }
        return row
    }

    /// The jobs and groups directly in group `id`, in order.
    func children(of id: GroupID) throws -> [GroupChild] {
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
    func children(of id: GroupID, in states: [JobState], limit: Int? = nil) throws -> [GroupChild] {
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
    func activeChildCount(of id: GroupID) throws -> Int {
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
    func output(of id: GroupID, at position: Int) throws -> String? {
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

    func appendGroupEvent(_ id: GroupID, now: Int64, from: JobState?, to: JobState, reason: String) throws {
        try connection.execute(
            "INSERT INTO group_events (group_id, at, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?)",
            [id.rawValue, now, from?.rawValue, to.rawValue, reason])
    }
}
