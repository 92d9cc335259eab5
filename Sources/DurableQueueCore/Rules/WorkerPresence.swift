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

    /// Of `rows`, those of workers that count as running at `now`: seen within ``staleAfter``, and
    /// not among `gone` (workers known to have stopped, such as this host's processes that exist no
    /// more).
    package static func live(_ rows: [WorkerKindRecord], now: Int64, gone: Set<String>) -> [WorkerKindRecord] {
        rows.filter { $0.seenAt >= now - staleAfter && !gone.contains($0.workerID) }
    }

    /// For each kind and version of `waiting` (jobs counted by kind and version), how many of the
    /// workers in `live` run it, and the versions those that run the kind at all run; in kind and
    /// version order.
    package static func coverage(of waiting: [KindVersion: Int], by live: [WorkerKindRecord]) -> [KindCoverage] {
        let byKind = Dictionary(grouping: live, by: \.kind)
        return waiting.sorted { $0.key < $1.key }.map { job, count in
            let kinds = byKind[job.kind] ?? []
            let runners = Set(kinds.filter { $0.versions.contains(job.version) }.map(\.workerID))
            return KindCoverage(
                job: job, waiting: count, workers: runners.count,
                versionsRun: Array(Set(kinds.map(\.versions))).sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) })
        }
    }
}

/// How many running workers run the waiting jobs of one kind and version (``WorkerPresence/coverage(of:by:)``).
package struct KindCoverage: Sendable, Hashable {
    /// The kind and version.
    package var job: KindVersion
    /// How many of its jobs wait (pending or scheduled).
    package var waiting: Int
    /// How many running workers run that version of the kind.
    package var workers: Int
    /// The versions that running workers run of the kind, each range once, lowest first; empty when
    /// none runs the kind at all.
    package var versionsRun: [ClosedRange<Int>]

    package init(job: KindVersion, waiting: Int, workers: Int, versionsRun: [ClosedRange<Int>]) {
        self.job = job
        self.waiting = waiting
        self.workers = workers
        self.versionsRun = versionsRun
    }

    /// Why the jobs wait, when no running worker runs them: `3 job(s) of 'send-email v3' wait for a
    /// worker that runs version 3: running workers run 'send-email' at versions 1–2`; nil when one does.
    package var unrunNote: String? {
        guard workers == 0 else { return nil }
        let why =
            versionsRun.isEmpty
            ? "no running worker runs '\(job.kind)'"
            : "running workers run '\(job.kind)' at "
                + versionsRun.map { $0.count == 1 ? "version \($0.lowerBound)" : "versions \($0.lowerBound)–\($0.upperBound)" }
                .joined(separator: ", ")
        return "\(waiting) job(s) of '\(job)' wait for a worker that runs version \(job.version): \(why)"
    }
}
