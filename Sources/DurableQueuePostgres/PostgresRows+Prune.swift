import DurableQueue

extension PostgresRows: PruneRows {
    func deleteFinishedJobs(in state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int {
        try await session.execute(
            """
            DELETE FROM jobs WHERE id IN (
                SELECT id FROM jobs
                WHERE state = $1 AND finished_at < $2
                  AND NOT EXISTS (SELECT 1 FROM groups AS g WHERE g.id = jobs.group_id AND g.state IN ('blocked', 'running'))
                ORDER BY finished_at LIMIT $3
                FOR UPDATE SKIP LOCKED)
            """, [state.rawValue, finishedBefore, limit])
    }

    func deleteFinishedGroups(in state: JobState, finishedBefore: Int64, limit: Int) async throws -> Int {
        try await session.execute(
            """
            DELETE FROM groups WHERE id IN (SELECT id FROM groups
                                            WHERE parent_id IS NULL AND state = $1 AND finished_at < $2
                                            ORDER BY finished_at LIMIT $3
                                            FOR UPDATE SKIP LOCKED)
            """, [state.rawValue, finishedBefore, limit])
    }

    func deleteDeletionLines(of state: JobState, deletedBefore: Int64, limit: Int) async throws -> Int {
        try await session.execute(
            """
            DELETE FROM deleted_jobs WHERE job_id IN (SELECT job_id FROM deleted_jobs
                                                      WHERE state = $1 AND deleted_at < $2
                                                      ORDER BY deleted_at LIMIT $3
                                                      FOR UPDATE SKIP LOCKED)
            """, [state.rawValue, deletedBefore, limit])
    }
}
