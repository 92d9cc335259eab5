import DurableQueue
import Foundation

/// Human forms of sizes, rates, times and durations.
package enum Formatting {
    /// `12.3 MiB`, `512 B`.
    package static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `5.2 MiB/s`.
    package static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// `45s`, `3m05s`, `2h03m`.
    package static func duration(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return String(format: "%dm%02ds", total / 60, total % 60) }
        return String(format: "%dh%02dm", total / 3600, (total % 3600) / 60)
    }

    /// A duration as the command line writes it: `250ms`, `2s`, `1500ms`.
    package static func duration(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }

    /// ISO 8601 in UTC with milliseconds, as the SQL views show times: `2026-11-22T10:00:00.123Z`.
    package static func timestamp(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Where a job's attempt was handed off: "to 'carrier' as 'reference'", and its deadline if any.
    package static func handOff(_ target: HandOffTarget) -> String {
        "to '\(target.carrier)' as '\(target.reference)'" + (target.deadline.map { ", deadline \(timestamp($0))" } ?? "")
    }

    /// What a waiting job waits for: "signal 'name'", and until when.
    package static func wait(signal: String, deadline: Int64?) -> String {
        "signal '\(signal)'" + (deadline.map { " until \(timestamp($0))" } ?? " (no timeout)")
    }

    /// A job's kind, with its version when that is not 1 (`send-email v3`): most jobs are of version 1.
    package static func kind(_ kind: String, version: Int) -> String {
        version == 1 ? kind : "\(kind) v\(version)"
    }

    /// A priority's name, or its number.
    package static func priority(_ priority: Priority) -> String {
        switch priority {
        case .background: "background"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        default: String(priority.rawValue)
        }
    }

    /// `42%`, or `-` when unknown.
    package static func percent(_ fraction: Double?) -> String {
        fraction.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? "-"
    }

    /// `text` on one line (runs of whitespace become one space), cut to `limit` characters.
    package static func oneLine(_ text: String, limit: Int = 200) -> String {
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }

    /// What holds a queue's starts back, in words: `1 per 400ms from start`, `5 per 60s`,
    /// `2 per key`, `1 per 1s per key from start`, `10 per 1m per key`, `2 key overrides`,
    /// `aging every 30s`; empty for none.
    package static func limits(of queue: QueueConfiguration) -> [String] {
        var limits: [String] = []
        if let throttle = queue.throttle { limits.append("1 per \(duration(throttle.interval)) from \(throttle.measuredFrom.rawValue)") }
        if let rate = queue.rateLimit { limits.append("\(rate.count) per \(duration(rate.window))") }
        if queue.partitionLimit > 0 { limits.append("\(queue.partitionLimit) per key") }
        if let throttle = queue.keyThrottle {
            limits.append("1 per \(duration(throttle.interval)) per key from \(throttle.measuredFrom.rawValue)")
        }
        if let rate = queue.keyRateLimit { limits.append("\(rate.count) per \(duration(rate.window)) per key") }
        if !queue.keyOverrides.isEmpty {
            limits.append("\(queue.keyOverrides.count) key override\(queue.keyOverrides.count == 1 ? "" : "s")")
        }
        if let aging = queue.aging { limits.append("aging every \(duration(aging.every))") }
        return limits
    }

    /// When a queue or a key may next start a job (ms since 1970), from `now`: `in 250ms`, `in 3s`,
    /// `in 2h03m` (a second or more as ``duration(seconds:)`` writes it), `now`; nil for no wait.
    package static func nextStart(_ at: Int64?, now: Int64) -> String? {
        at.map { at in
            guard at > now else { return "now" }
            return at - now < 1_000 ? "in \(at - now)ms" : "in \(duration(seconds: Double(at - now) / 1000))"
        }
    }
}
