import DurableQueue
import DurableQueueInspection
import Foundation

/// `/`: every queue with its counts by state, limits and next start; schedules and recent groups
/// when there are any.
struct OverviewPage {
    let location: String
    let queues: [QueueStatus]
    let schedules: [ScheduleStatus]
    let groups: [GroupSummary]
    let now: Int64
    let actionsEnabled: Bool

    /// The states shown as columns, in the order a job moves through them.
    static let columns: [JobState] = [.scheduled, .pending, .blocked, .running, .handedOff, .waiting, .parked, .succeeded, .failed, .cancelled]

    func render() -> String {
        var body = "<h1>Queues</h1><p class=\"muted\">\(HTML.escape(location))</p>\n"
        body += HTML.table(
            // The pause button beside the name: the table scrolls sideways in a narrow window, and
            // the action stays in sight (a browser test checks every page at 1280 and 390 px).
            ["Queue", "", "Mode", "Limit"] + Self.columns.map { $0.rawValue.replacingOccurrences(of: "_", with: " ") }
                + ["Throttle and limits", "Next start"],
            queues.map(row), empty: "No queues yet: enqueue a job and it appears here.")
        if !schedules.isEmpty {
            body += "<h2>Schedules</h2>\n"
            body += HTML.table(["Schedule", "Rule", "Queue", "Next tick", "Last tick", "Last job"], schedules.map(scheduleRow), empty: "")
        }
        if !groups.isEmpty {
            body += "<h2>Sequences and groups</h2>\n"
            body += HTML.table(["Group", "Kind", "Name", "State", "Done", "Created"], groups.map(groupRow), empty: "")
        }
        return PageLayout(title: "Queues", actionsEnabled: actionsEnabled).render(body: body)
    }

    private func row(_ status: QueueStatus) -> [String] {
        let queue = status.configuration
        let name = HTML.escape(queue.name)
        let counts = Self.columns.map { state -> String in
            let count = status.counts[state]
            guard count > 0 else { return "<span class=\"muted\">0</span>" }
            return "<a href=\"/jobs\(HTML.query([("queue", queue.name), ("state", state.rawValue)]))\">\(count)</a>"
        }
        let limits = Formatting.limits(of: queue)
        let nextStart = Formatting.nextStart(status.nextStartAt, now: now)
        let path = "/api/queues/\(HTML.segment(queue.name))/\(queue.isPaused ? "resume" : "pause")"
        let paused = queue.isPaused ? " <span class=\"badge blocked\">paused</span>" : ""
        let byKey = queue.partitionLimit > 0 || queue.fairness == .byKey || queue.keyThrottle != nil || queue.keyRateLimit != nil
            || !queue.keyOverrides.isEmpty
            ? " <a class=\"muted\" href=\"/queues/\(HTML.segment(queue.name))/keys\">by key</a>" : ""
        return [
            "<a href=\"/jobs\(HTML.query([("queue", queue.name)]))\">\(name)</a>\(paused)\(byKey)",
            HTML.actionButton(queue.isPaused ? "Resume" : "Pause", path: path, back: "/", enabled: actionsEnabled),
            HTML.escape(queue.mode.rawValue), queue.concurrencyLimit == 0 ? "–" : String(queue.concurrencyLimit),
        ] + counts + [HTML.escape(limits.isEmpty ? "–" : limits.joined(separator: ", ")), HTML.escape(nextStart ?? "–")]
    }

    private func scheduleRow(_ schedule: ScheduleStatus) -> [String] {
        let lastJob = schedule.lastJob.map { id in
            "<a href=\"/jobs/\(id.rawValue)\">\(id.rawValue)</a> " + (schedule.lastJobState.map(HTML.badge) ?? "")
        }
        return [
            HTML.escape(schedule.name) + (schedule.isPaused ? " <span class=\"badge blocked\">paused</span>" : ""),
            "<code>\(HTML.escape(schedule.rule.description))</code>", HTML.escape(schedule.queue),
            HTML.time(schedule.nextTick?.millisecondsSince1970), HTML.time(schedule.lastTick?.millisecondsSince1970), lastJob ?? "–",
        ]
    }

    private func groupRow(_ group: GroupSummary) -> [String] {
        [
            "<a href=\"/groups/\(group.id.rawValue)\">\(group.id.rawValue)</a>", HTML.escape(group.kind), HTML.escape(group.name ?? "–"),
            HTML.badge(group.state), "\(group.succeeded) of \(group.children)", HTML.time(group.createdAt),
        ]
    }
}
