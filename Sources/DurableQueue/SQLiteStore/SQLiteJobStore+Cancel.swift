extension SQLiteJobStore {
    /// Cancels job `id`: a waiting job becomes `cancelled` now; a running one gets its durable cancel
    /// flag, and never runs again whatever happens to its worker.
    ///
    /// - Throws: `jobNotFound` when no job has that id.
    package func cancel(_ id: JobID, now: Int64) throws -> CancelOutcome {
        try write("cancel job \(id)") {
            try requestCancel(id, now: now, reason: "cancel requested")
        }
    }

    /// Cancels every unfinished job the selector matches, in one transaction.
    ///
    /// - Returns: The jobs changed and what happened to each.
    package func cancel(_ selector: CancelSelector, now: Int64) throws
        -> [JobID: CancelOutcome]
    {
        let (sql, arguments): (String, [(any SQLiteBindable)?]) =
            switch selector {
            case .tag(let tag):
                ("SELECT job_id FROM job_tags WHERE tag = ?", [tag])
            case .queue(let queue):
                ("SELECT id FROM jobs WHERE queue = ? AND state IN ('scheduled', 'pending', 'blocked', 'running')", [queue])
            case .all:
                ("SELECT id FROM jobs WHERE state IN ('scheduled', 'pending', 'blocked', 'running')", [])
            }
        return try write("cancel jobs (\(selector))") {
            var ids: [JobID] = []
            try connection.query(sql, arguments) { row in ids.append(JobID(row.int64(0))) }
            var outcomes: [JobID: CancelOutcome] = [:]
            for id in ids {
                let outcome = try requestCancel(id, now: now, reason: "cancel requested")
                if case .alreadyFinished = outcome { continue }
                outcomes[id] = outcome
            }
            return outcomes
        }
    }

    /// Sets the cancel flag of job `id` and cancels it at once unless it is running.
    /// Called inside a write transaction.
    func requestCancel(_ id: JobID, now: Int64, reason: String) throws -> CancelOutcome {
        guard let (state, attempts, cancelRequested) = try stateRow(id) else {
            throw DurableQueueError.jobNotFound(id)
        }
        if state.isTerminal { return .alreadyFinished(state) }
        if state == .running {
            if !cancelRequested {
                try connection.execute(
                    "UPDATE jobs SET cancel_requested = 1, updated_at = ? WHERE id = ?", [now, id.rawValue])
                try appendEvent(id, now: now, from: .running, to: .running, attempt: attempts, reason: reason)
            }
            return .requested
        }
        try connection.execute(
            """
            UPDATE jobs SET state = 'cancelled', cancel_requested = 1, finished_at = ?1, updated_at = ?1
            WHERE id = ?2
            """, [now, id.rawValue])
        try appendEvent(id, now: now, from: state, to: .cancelled, attempt: attempts, reason: reason)
        try jobEnded(id, now: now)
        return .cancelled
    }

    /// The job's state, attempt count and cancel flag, or nil if there is no such job.
    func stateRow(_ id: JobID) throws -> (JobState, Int, Bool)? {
        var result: (JobState, Int, Bool)?
        try connection.query("SELECT state, attempts, cancel_requested FROM jobs WHERE id = ?", [id.rawValue]) { row in
            result = (try JobState(stored: row.string(0)), Int(row.int64(1)), row.int64(2) != 0)
        }
        return result
    }
}
