import DurableQueue
import DurableQueueInspection

/// `/queues/{name}/keys`: a queue's unfinished jobs by partition key, each count linking to the jobs.
struct KeysPage {
    let queue: QueueConfiguration
    let keys: [KeyCounts]
    let actionsEnabled: Bool

    /// The unfinished states, as columns.
    static let columns: [JobState] = JobState.allCases.filter { !$0.isTerminal }

    func render() -> String {
        var settings = ["partition limit \(queue.partitionLimit == 0 ? "none" : String(queue.partitionLimit))"]
        if queue.fairness == .byKey { settings.append("keys take turns") }
        var body = "<h1>Queue \(HTML.escape(queue.name)) <span class=\"muted\">by key</span></h1>\n"
        body += "<p class=\"muted\">\(HTML.escape(settings.joined(separator: ", ")))</p>\n"
        body += HTML.table(["Key"] + Self.columns.map(\.rawValue), keys.map(row), empty: "No unfinished jobs.")
        return PageLayout(title: "Queue \(queue.name) by key", actionsEnabled: actionsEnabled).render(body: body)
    }

    private func row(_ key: KeyCounts) -> [String] {
        [key.key.map(HTML.escape) ?? "<span class=\"muted\">no key</span>"]
            + Self.columns.map { state in
                let count = key[state]
                guard count > 0 else { return "<span class=\"muted\">0</span>" }
                return "<a href=\"/jobs\(HTML.query([("queue", queue.name), ("state", state.rawValue)]))\">\(count)</a>"
            }
    }
}
