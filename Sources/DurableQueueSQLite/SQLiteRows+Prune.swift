import DurableQueueCore

extension SQLiteRows: PruneRows {
    func deleteFinishedJobs(in state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int {
        try onStore { store in
            try store.connection.execute(
                """
                DELETE FROM jobs WHERE id IN (
                    SELECT id FROM jobs
                    WHERE state = ?1 AND finished_at < ?2
                      AND NOT EXISTS (SELECT 1 FROM groups AS g WHERE g.id = jobs.group_id AND g.state IN ('blocked', 'running'))
                    ORDER BY finished_at LIMIT ?3)
                """, [state.rawValue, finishedBefore, limit])
            return try store.connection.changes
        }
    }

    func deleteFinishedGroups(in state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int {
        try onStore { store in
            try store.connection.execute(
                """
                DELETE FROM groups WHERE id IN (SELECT id FROM groups
                                                WHERE parent_id IS NULL AND state = ?1 AND finished_at < ?2
                                                ORDER BY finished_at LIMIT ?3)
                """, [state.rawValue, finishedBefore, limit])
            return try store.connection.changes
        }
    }

    func deleteDeletionLines(of state: JobState, deletedBefore: Int64, limit: Int) async throws -> Int {
        try onStore { store in
            try store.connection.execute(SQLiteJobStore.pruneDeletedJobLinesStatement, [state.rawValue, deletedBefore, limit])
            return try store.connection.changes
        }
    }
}
