import DurableQueue
import DurableQueueInspection

/// `/activity`: per queue, attempts ended per minute over the last hour by outcome (a stacked bar
/// chart in SVG, drawn on the server), wait and run time percentiles, and the oldest due job's
/// wait — all from the jobs' history (``QueueActivity``), no metrics store.
struct ActivityPage {
    let activity: [QueueActivity]
    let actionsEnabled: Bool

    /// Each outcome's colour and label.
    static let colours: [(QueueActivity.Outcome, String)] = [
        (.succeeded, "#2e7d32"), (.retried, "#f0a020"), (.failed, "#c62828"), (.cancelled, "#8a8f98"),
    ]

    func render() -> String {
        var body = """
            <h1>Activity</h1>
            <p class="muted">The last hour, from the history of the \(QueueActivity.jobLimit) jobs that finished last and of \
            unfinished ones; attempts ended per minute, wait (from due to start) and run times.</p>

            """
        body += "<p class=\"legend\">" + Self.colours.map {
            "<span><svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect width=\"10\" height=\"10\" rx=\"2\" fill=\"\($0.1)\"/></svg> \($0.0.rawValue)</span>"
        }.joined() + "</p>\n"
        if activity.isEmpty { body += "<p class=\"empty\">No queue has run or waiting jobs.</p>" }
        for queue in activity {
            body += "<section class=\"activity\"><h2>\(HTML.escape(queue.queue))</h2>\n"
            body += Self.chart(queue)
            body += "<p class=\"figures\">" + [
                Self.figure("wait", queue.wait), Self.figure("run", queue.run),
                "oldest waiting: " + (queue.oldestWaiting.map(Self.duration) ?? "none"),
            ].joined(separator: " · ") + "</p></section>\n"
        }
        return PageLayout(title: "Activity", actionsEnabled: actionsEnabled).render(body: body)
    }

    /// Attempts ended per minute, stacked by outcome, oldest minute on the left.
    static func chart(_ queue: QueueActivity) -> String {
        let width = 600, height = 120, bar = width / QueueActivity.minutes
        let most = max(1, queue.perMinute.map { $0.values.reduce(0, +) }.max() ?? 1)
        var bars = ""
        for (minute, counts) in queue.perMinute.enumerated() {
            var top = height
            for (outcome, colour) in colours {
                let count = counts[outcome] ?? 0
                guard count > 0 else { continue }
                let size = max(1, count * (height - 14) / most)
                top -= size
                bars += "<rect x=\"\(minute * bar)\" y=\"\(top)\" width=\"\(bar - 1)\" height=\"\(size)\" fill=\"\(colour)\"><title>\(count) \(outcome.rawValue), \(QueueActivity.minutes - minute) min ago</title></rect>"
            }
        }
        let total = queue.perMinute.reduce(0) { $0 + $1.values.reduce(0, +) }
        return """
            <svg class="chart" viewBox="0 0 \(width) \(height + 16)" width="100%" role="img" \
            aria-label="\(total) attempts ended in the last hour on queue \(HTML.escape(queue.queue)); at most \(most) in a minute">\
            <line x1="0" y1="\(height)" x2="\(width)" y2="\(height)" stroke="#c5cbd6"/>\(bars)\
            <text x="0" y="\(height + 13)" font-size="10" fill="#6b7280">−60 min</text>\
            <text x="\(width)" y="\(height + 13)" font-size="10" fill="#6b7280" text-anchor="end">now</text>\
            <text x="2" y="10" font-size="10" fill="#6b7280">\(most)/min</text></svg>
            """
    }

    private static func figure(_ name: String, _ percentiles: QueueActivity.Percentiles?) -> String {
        guard let percentiles else { return "\(name): none" }
        return "\(name) p50 \(duration(percentiles.p50)), p95 \(duration(percentiles.p95)), p99 \(duration(percentiles.p99)) (\(percentiles.count))"
    }

    /// Milliseconds in the largest unit that keeps a whole number: `850 ms`, `12 s`, `3 min`, `2 h`.
    static func duration(_ milliseconds: Int64) -> String {
        switch milliseconds {
        case ..<1_000: "\(milliseconds) ms"
        case ..<120_000: "\(milliseconds / 1_000) s"
        case ..<7_200_000: "\(milliseconds / 60_000) min"
        default: "\(milliseconds / 3_600_000) h"
        }
    }
}
