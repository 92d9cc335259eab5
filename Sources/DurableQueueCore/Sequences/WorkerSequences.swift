/// What a running worker writes of the job types it runs, written once for every store.
package enum WorkerSequences {
    /// Replaces worker `workerID`'s rows with one per kind of `runs` on `queues` (nil: every
    /// queue), seen `now` and not paused, and deletes the rows of workers not seen for
    /// ``WorkerPresence/forgottenAfter``.
    package static func record(
        workerID: String, runs: RunnableKinds, queues: Set<String>?, startedAt: Int64, in rows: any WorkerRows, now: Int64
    ) async throws {
        try await rows.deleteWorkerKinds(seenBefore: now - WorkerPresence.forgottenAfter)
        try await rows.deleteWorkerKinds(of: workerID)
        for (kind, versions) in runs.versions.sorted(by: { $0.key < $1.key }) {
            try await rows.insertWorkerKind(
                WorkerKindRecord(workerID: workerID, kind: kind, versions: versions, startedAt: startedAt, seenAt: now, queues: queues))
        }
    }
}

extension JobStore {
    /// Records in one transaction that worker `workerID`, started at `startedAt`, runs `runs` on
    /// `queues` (nil: every queue; see ``WorkerSequences/record(workerID:runs:queues:startedAt:in:now:)``).
    /// Nobody is told: no worker waits for it.
    package func recordWorker(_ workerID: String, runs: RunnableKinds, queues: Set<String>?, startedAt: Int64, now: Int64) async throws {
        try await runSequence("record the job types worker '\(workerID)' runs", now: now, notifying: false) { rows, now in
            try await WorkerSequences.record(workerID: workerID, runs: runs, queues: queues, startedAt: startedAt, in: rows, now: now)
        }
    }

    /// Marks worker `workerID`'s rows paused: its process paused, and writes nothing until it resumes.
    package func recordWorkerPaused(_ workerID: String, now: Int64) async throws {
        try await runSequence("record that worker '\(workerID)' paused", now: now, notifying: false) { rows, now in
            try await rows.markWorkerKindsPaused(of: workerID, at: now)
        }
    }

    /// Deletes worker `workerID`'s rows: it stopped.
    package func forgetWorker(_ workerID: String, now: Int64) async throws {
        try await runSequence("forget the job types worker '\(workerID)' ran", now: now, notifying: false) { rows, _ in
            try await rows.deleteWorkerKinds(of: workerID)
        }
    }
}
