import Metrics
import Synchronization

/// The engine's counters and timers, reported through swift-metrics (a no-op unless the app
/// bootstraps a backend before the engine's first attempt). Dimensions: `queue` and `kind`.
struct JobMetrics: Sendable {
    /// Counter names, as a metrics backend shows them.
    enum Name {
        static let started = "durablequeue_jobs_started_total"
        static let succeeded = "durablequeue_jobs_succeeded_total"
        static let failed = "durablequeue_jobs_failed_total"
        static let retried = "durablequeue_jobs_retried_total"
        static let cancelled = "durablequeue_jobs_cancelled_total"
        static let handedOff = "durablequeue_jobs_handed_off_total"
        static let waiting = "durablequeue_jobs_waiting_total"
        static let parked = "durablequeue_jobs_parked_total"
        static let poisoned = "durablequeue_jobs_poisoned_total"
        static let waitTime = "durablequeue_job_wait_seconds"
        static let runTime = "durablequeue_job_run_seconds"
        static let queueDepth = "durablequeue_queue_depth"
    }

    /// Counts a started attempt and times how long it waited past its run-at time.
    ///
    /// Without a backend it does nothing: making the no-op counter and timer of every attempt cost
    /// more than a thirtieth of a drained job's instructions.
    func started(_ job: ClaimedJob, waitedMilliseconds: Int64) {
        guard hasBackend else { return }
        Counter(label: Name.started, dimensions: dimensions(job)).increment()
        Timer(label: Name.waitTime, dimensions: dimensions(job)).recordMilliseconds(max(0, waitedMilliseconds))
    }

    /// Counts how the attempt ended and times it.
    func finished(_ job: ClaimedJob, as state: JobState, ranMilliseconds: Int64) {
        guard hasBackend else { return }
        let name: String? =
            switch state {
            case .succeeded: Name.succeeded
            case .failed: Name.failed
            case .cancelled: Name.cancelled
            case .scheduled, .pending: Name.retried
            case .handedOff: Name.handedOff
            case .waiting: Name.waiting
            case .parked: Name.parked
            case .blocked, .running: nil
            }
        if let name { Counter(label: name, dimensions: dimensions(job)).increment() }
        Timer(label: Name.runTime, dimensions: dimensions(job)).recordMilliseconds(max(0, ranMilliseconds))
    }

    /// Counts a job that failed as a poison job (``LostAttempts``) when recovery took it back.
    func poisoned(queue: String, kind: String) {
        guard hasBackend else { return }
        Counter(label: Name.poisoned, dimensions: [("queue", queue), ("kind", kind)]).increment()
    }

    /// Whether the app bootstrapped a metrics backend: without one, reports go nowhere, and what
    /// only feeds a report (counting the waiting jobs) can be skipped. Asked once, at the first
    /// report: the factory's lock and the cast were 1 % of a drained job's instructions, asked at
    /// every start and end (swift-metrics is bootstrapped once, when a process starts).
    var hasBackend: Bool { backend.isPresent }

    private let backend = BackendPresence()

    /// Reports how many jobs of each queue wait (scheduled, pending or blocked).
    func depth(_ waiting: [String: Int]) {
        for (queue, count) in waiting {
            Gauge(label: Name.queueDepth, dimensions: [("queue", queue)]).record(count)
        }
    }

    private func dimensions(_ job: ClaimedJob) -> [(String, String)] {
        [("queue", job.queue), ("kind", job.kind)]
    }
}

/// Whether a swift-metrics backend is bootstrapped, found out once.
private final class BackendPresence: Sendable {
    /// 0 until found out, then 1 without a backend and 2 with one.
    private let found = Atomic<UInt8>(0)

    var isPresent: Bool {
        switch found.load(ordering: .relaxed) {
        case 1: return false
        case 2: return true
        default:
            let present = !(MetricsSystem.factory is NOOPMetricsHandler)
            found.store(present ? 2 : 1, ordering: .relaxed)
            return present
        }
    }
}
