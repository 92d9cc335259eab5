/// A history row as the activity charts read it (``JobStoreReader/recentEvents(since:jobLimit:)``): the
/// change, its job's queue, and when the job was created and in what state.
package struct ActivityEvent: Sendable, Hashable {
    package var queue: String
    package var job: JobID
    package var attempt: Int
    package var at: Int64
    package var from: JobState?
    package var to: JobState
    package var createdAt: Int64
    /// The state the job was created in (nil for jobs whose creation is a history row of its own).
    package var createdState: JobState?

    package init(
        queue: String, job: JobID, attempt: Int, at: Int64, from: JobState?, to: JobState, createdAt: Int64, createdState: JobState?
    ) {
        self.queue = queue
        self.job = job
        self.attempt = attempt
        self.at = at
        self.from = from
        self.to = to
        self.createdAt = createdAt
        self.createdState = createdState
    }
}

/// One queue's activity over the last hour, from its jobs' history alone: attempts ended per
/// minute by outcome, wait and run time percentiles, and how long its oldest due job has waited.
package struct QueueActivity: Sendable, Hashable {
    /// How an attempt ended, as the charts colour it.
    package enum Outcome: String, Sendable, Hashable, CaseIterable {
        case succeeded, failed, cancelled, retried
    }

    /// The 50th, 95th and 99th percentiles of a set of durations (ms), and how many there were.
    package struct Percentiles: Sendable, Hashable {
        package var count: Int
        package var p50: Int64
        package var p95: Int64
        package var p99: Int64

        /// Nearest-rank percentiles of `values`; nil when there are none.
        package init?(_ values: [Int64]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            func rank(_ fraction: Double) -> Int64 { sorted[max(0, min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))] }
            self.count = values.count
            self.p50 = rank(0.50)
            self.p95 = rank(0.95)
            self.p99 = rank(0.99)
        }
    }

    package var queue: String
    /// Attempts ended in each of the last ``minutes`` minutes, oldest first, by outcome.
    package var perMinute: [[Outcome: Int]]
    /// How long attempts waited to start after their job became due, and how long they ran (ms).
    package var wait: Percentiles?
    package var run: Percentiles?
    /// How long the queue's oldest due job has waited (ms); nil when none waits.
    package var oldestWaiting: Int64?

    /// The minutes a chart covers.
    package static let minutes = 60
    /// The most finished jobs (the last to finish) and unfinished jobs whose history the charts
    /// read: a busier hour shows the part they cover.
    package static let jobLimit = 20_000

    /// Each queue's activity in the ``minutes`` before `now`, from `events` (the newest history rows,
    /// any order) and `oldestDue` (each queue's earliest due time of a pending job): one rule,
    /// whatever store the rows came from. Queues appear if they have an event or a waiting job.
    package static func summarize(events: [ActivityEvent], oldestDue: [String: Int64], now: Int64) -> [QueueActivity] {
        let start = now - Int64(minutes) * 60_000
        let byJob = Dictionary(grouping: events, by: \.job).mapValues { $0.sorted { $0.at < $1.at } }
        var perMinute: [String: [[Outcome: Int]]] = [:]
        var waits: [String: [Int64]] = [:]
        var runs: [String: [Int64]] = [:]
        for (_, history) in byJob {
            for (index, event) in history.enumerated() where event.at >= start && event.at <= now {
                if event.from == .running, let outcome = outcome(event.to) {
                    let minute = Int((event.at - start) / 60_000)
                    perMinute[event.queue, default: Array(repeating: [:], count: minutes)][min(minutes - 1, minute)][outcome, default: 0] += 1
                    if let claim = history[..<index].last(where: { $0.to == .running && $0.from != .running && $0.attempt == event.attempt }) {
                        runs[event.queue, default: []].append(event.at - claim.at)
                    }
                }
                if event.to == .running && event.from == .pending {
                    let due = history[..<index].last(where: { $0.to == .pending })?.at
                        ?? (event.createdState == .pending && event.attempt == 1 && history[..<index].isEmpty ? event.createdAt : nil)
                    if let due { waits[event.queue, default: []].append(max(0, event.at - due)) }
                }
            }
        }
        let queues = Set(perMinute.keys).union(waits.keys).union(oldestDue.keys).sorted()
        return queues.map { queue in
            QueueActivity(
                queue: queue, perMinute: perMinute[queue] ?? Array(repeating: [:], count: minutes), wait: Percentiles(waits[queue] ?? []),
                run: Percentiles(runs[queue] ?? []), oldestWaiting: oldestDue[queue].map { max(0, now - $0) })
        }
    }

    private static func outcome(_ state: JobState) -> Outcome? {
        switch state {
        case .succeeded: .succeeded
        case .failed: .failed
        case .cancelled: .cancelled
        case .pending, .scheduled: .retried
        case .blocked, .running, .handedOff, .waiting, .parked: nil
        }
    }
}
