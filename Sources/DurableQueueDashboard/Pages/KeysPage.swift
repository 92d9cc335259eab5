import DurableQueue
import DurableQueueInspection

/// `/queues/{name}/keys`: a queue's limits per partition key (with forms that change them) and its
/// unfinished jobs by key, each count linking to the jobs, with each key's next allowed start.
struct KeysPage {
    let queue: QueueConfiguration
    let keys: [KeyCounts]
    let now: Int64
    let actionsEnabled: Bool

    /// The unfinished states, as columns.
    static let columns: [JobState] = JobState.allCases.filter { JobFilter.unfinished.contains($0) }

    func render() -> String {
        var settings = Formatting.limits(of: queue)
        if queue.fairness == .byKey { settings.append("keys take turns") }
        let back = "/queues/\(HTML.segment(queue.name))/keys"
        var body = "<h1>Queue \(HTML.escape(queue.name)) <span class=\"muted\">by key</span></h1>\n"
        body += "<p class=\"muted\">\(HTML.escape(settings.isEmpty ? "no limits" : settings.joined(separator: ", ")))</p>\n"
        body += "<h2>Limits per key</h2>\n"
        let limits = [("*", queue.keyLimits)] + queue.keyOverrides.sorted { $0.key < $1.key }
        body += HTML.table(
            ["Pattern", "At once", "Throttle", "Rate", ""],
            limits.map { pattern, limits in limitsRow(pattern, limits, back: back) }, empty: "")
        body += setForm(back: back)
        body += "<h2>Jobs by key</h2>\n"
        body += HTML.table(["Key"] + Self.columns.map(\.rawValue) + ["Next start"], keys.map(row), empty: "No unfinished jobs.")
        return PageLayout(title: "Queue \(queue.name) by key", actionsEnabled: actionsEnabled).render(body: body)
    }

    private var disabled: String { actionsEnabled ? "" : " disabled title=\"open the URL with the token to act\"" }

    private func limitsRow(_ pattern: String, _ limits: KeyLimits, back: String) -> [String] {
        let remove =
            pattern == "*"
            ? ""
            : """
            <form method="post" action="/api/queues/\(HTML.segment(queue.name))/key-limits" class="action">\
            <input type="hidden" name="back" value="\(HTML.escape(back))">\
            <input type="hidden" name="pattern" value="\(HTML.escape(pattern))">\
            <input type="hidden" name="remove" value="1">\
            <button type="submit"\(disabled)>Remove</button></form>
            """
        return [
            pattern == "*" ? "* <span class=\"muted\">(every other key)</span>" : HTML.escape(pattern),
            limits.concurrencyLimit == 0 ? "-" : String(limits.concurrencyLimit),
            limits.throttle.map { HTML.escape("\(Formatting.duration($0.interval)) from \($0.measuredFrom.rawValue)") } ?? "-",
            limits.rateLimit.map { HTML.escape("\($0.count) per \(Formatting.duration($0.window))") } ?? "-",
            remove,
        ]
    }

    /// A form that sets the limits of the keys a pattern names.
    private func setForm(back: String) -> String {
        """
        <form method="post" action="/api/queues/\(HTML.segment(queue.name))/key-limits" class="action key-limits">\
        <input type="hidden" name="back" value="\(HTML.escape(back))">\
        <input name="pattern" placeholder="* or premium:*" required aria-label="key pattern">\
        <input name="concurrency" placeholder="at once" inputmode="numeric" aria-label="jobs at once per key">\
        <input name="throttle_ms" placeholder="throttle ms" inputmode="numeric" aria-label="throttle in milliseconds">\
        <select name="measured_from" aria-label="throttle measured from"><option>start</option><option>end</option></select>\
        <input name="rate_count" placeholder="starts" inputmode="numeric" aria-label="starts per window">\
        <input name="rate_window_ms" placeholder="per ms" inputmode="numeric" aria-label="rate window in milliseconds">\
        <button type="submit"\(disabled)>Set limits</button></form>

        """
    }

    private func row(_ key: KeyCounts) -> [String] {
        [key.key.map(HTML.escape) ?? "<span class=\"muted\">no key</span>"]
            + Self.columns.map { state in
                let count = key[state]
                guard count > 0 else { return "<span class=\"muted\">0</span>" }
                return "<a href=\"/jobs\(HTML.query([("queue", queue.name), ("state", state.rawValue)]))\">\(count)</a>"
            }
            + [Formatting.nextStart(key.nextStartAt, now: now).map(HTML.escape) ?? "-"]
    }
}
