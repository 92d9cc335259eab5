import Foundation

/// One workload's result: a JSON line and a table row.
struct Measurement {
    var workload: String
    var jobs: Int
    var seconds: Double
    /// Extra numbers (latency percentiles, memory, the baseline's rate, ratios).
    var extra: [(String, Double)] = []

    var jobsPerSecond: Double { seconds > 0 ? Double(jobs) / seconds : 0 }

    /// The JSON line, with the SQLite settings of the run.
    func jsonLine(settings: SQLiteSettings) -> String {
        var fields: [(String, String)] = [
            ("workload", "\"\(workload)\""), ("jobs", "\(jobs)"), ("seconds", String(format: "%.4f", seconds)),
            ("jobs_per_sec", String(format: "%.1f", jobsPerSecond)), ("sqlite", "\"\(settings.version)\""),
            ("journal_mode", "\"\(settings.journalMode)\""), ("synchronous", "\"\(settings.synchronous)\""),
        ]
        fields += extra.map { ($0.0, String(format: "%.3f", $0.1)) }
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }
}

/// The SQLite library and settings the benchmark ran with.
struct SQLiteSettings {
    var version: String
    var journalMode: String
    var synchronous: String
}

/// Seconds on a monotonic clock since `start`.
func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// The process's peak resident memory (VmHWM) in kB, or -1 where /proc is missing.
func peakRSSKilobytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Double(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// The median of `runs` by rate, with the number of runs and the slowest and fastest rate added.
func median(_ runs: [Measurement]) -> Measurement {
    let sorted = runs.sorted { $0.jobsPerSecond < $1.jobsPerSecond }
    var result = sorted[sorted.count / 2]
    result.extra += [
        ("runs", Double(runs.count)), ("min_jobs_per_sec", sorted[0].jobsPerSecond),
        ("max_jobs_per_sec", sorted[sorted.count - 1].jobsPerSecond),
    ]
    return result
}

/// The `p`th percentile (0…1) of sorted `values`.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
}
