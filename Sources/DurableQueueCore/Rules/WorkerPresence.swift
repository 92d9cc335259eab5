/// Which workers are running, by what they wrote of the job types they run (``WorkerKindRecord``),
/// and which waiting jobs none of them runs: the one rule the engine's writes and the tools' reads
/// share.
package enum WorkerPresence {
    /// How often a running worker writes its rows again (ms).
    package static let refreshInterval: Int64 = 60_000
    /// How long after its last write a worker still counts as running (ms): three refreshes, so a
    /// worker whose store was slow once or twice is not taken for stopped.
    package static let staleAfter: Int64 = 3 * refreshInterval
    /// How long after its last write a worker's rows are kept (ms); the next worker to write its own
    /// deletes older ones.
    package static let forgottenAfter: Int64 = 3_600_000

    /// Of `rows`, those of workers that count as present at `now`: seen within ``staleAfter``, or
    /// paused (a paused process writes nothing until it resumes), and not among `gone` (workers
    /// known to have stopped, such as this host's processes that exist no more).
    package static func live(_ rows: [WorkerKindRecord], now: Int64, gone: Set<String>) -> [WorkerKindRecord] {
        rows.filter { ($0.seenAt >= now - staleAfter || $0.pausedAt != nil) && !gone.contains($0.workerID) }
    }

    /// For each queue, kind and version of `waiting` (jobs counted so), how many of the workers in
    /// `live` run it there, running or paused, and the versions those that run the kind on that
    /// queue at all run; in kind, version and queue order. A worker limited to some queues runs
    /// its kinds on those only.
    package static func coverage(of waiting: [QueuedKindVersion: Int], by live: [WorkerKindRecord]) -> [KindCoverage] {
        let byKind = Dictionary(grouping: live, by: \.kind)
        return waiting.sorted { $0.key < $1.key }.map { key, count in
            let kinds = (byKind[key.job.kind] ?? []).filter { $0.runs(queue: key.queue) }
            let runners = kinds.filter { $0.versions.contains(key.job.version) }
            let paused = Set(runners.filter { $0.pausedAt != nil }.map(\.workerID))
            return KindCoverage(
                queue: key.queue, job: key.job, waiting: count, workers: Set(runners.map(\.workerID)).subtracting(paused).count,
                pausedWorkers: paused.count,
                versionsRun: Array(Set(kinds.map(\.versions))).sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) })
        }
    }
}

/// How many running workers run the waiting jobs of one kind and version on one queue
/// (``WorkerPresence/coverage(of:by:)``).
package struct KindCoverage: Sendable, Hashable {
    /// The queue the jobs wait in.
    package var queue: String
    /// The kind and version.
    package var job: KindVersion
    /// How many of its jobs wait (pending or scheduled).
    package var waiting: Int
    /// How many running workers run that version of the kind on the queue.
    package var workers: Int
    /// How many workers that run it there are paused (their process paused: an app in the background).
    package var pausedWorkers: Int
    /// The versions that workers run of the kind on the queue, each range once, lowest first; empty
    /// when none runs the kind there at all.
    package var versionsRun: [ClosedRange<Int>]

    package init(queue: String, job: KindVersion, waiting: Int, workers: Int, pausedWorkers: Int = 0, versionsRun: [ClosedRange<Int>]) {
        self.queue = queue
        self.job = job
        self.waiting = waiting
        self.workers = workers
        self.pausedWorkers = pausedWorkers
        self.versionsRun = versionsRun
    }

    /// Why the jobs wait, when no running worker runs them: `3 job(s) of 'send-email v3' on queue
    /// 'mail' wait for a worker that runs version 3: running workers run 'send-email' there at
    /// versions 1–2`; nil when one does.
    package var unrunNote: String? {
        guard workers == 0 else { return nil }
        let why =
            pausedWorkers > 0
            ? "the \(pausedWorkers) worker(s) that run it there are paused"
            : versionsRun.isEmpty
                ? "no running worker runs '\(job.kind)' there"
                : "running workers run '\(job.kind)' there at "
                    + versionsRun.map { $0.count == 1 ? "version \($0.lowerBound)" : "versions \($0.lowerBound)–\($0.upperBound)" }
                    .joined(separator: ", ")
        return "\(waiting) job(s) of '\(job)' on queue '\(queue)' wait for a worker that runs version \(job.version): \(why)"
    }
}
