import DurableQueue
import DurableQueueInspection

/// `/jobs`: jobs newest first, filtered by state, queue, kind and tag, with a search box.
struct JobsPage {
    let filter: JobFilter
    let jobs: [JobRecord]
    let total: Int
    let queueNames: [String]
    let actionsEnabled: Bool

    func render() -> String {
        let state = filter.states?.first?.rawValue
        let queue = filter.queues?.first
        let stateOptions = (["" as String] + JobState.allCases.map(\.rawValue)).map { value in
            "<option value=\"\(value)\"\(value == (state ?? "") ? " selected" : "")>\(value.isEmpty ? "any state" : value)</option>"
        }.joined()
        let queueOptions = ([""] + queueNames).map { value in
            "<option value=\"\(HTML.escape(value))\"\(value == (queue ?? "") ? " selected" : "")>\(value.isEmpty ? "any queue" : HTML.escape(value))</option>"
        }.joined()
        var body = "<h1>Jobs</h1>\n"
        body += """
            <form class="filters" method="get" action="/jobs">
            <select name="state" aria-label="state">\(stateOptions)</select>
            <select name="queue" aria-label="queue">\(queueOptions)</select>
            <input name="kind" placeholder="kind" value="\(HTML.escape(filter.kinds?.first ?? ""))" aria-label="kind">
            <input name="tag" placeholder="tag" value="\(HTML.escape(filter.tag ?? ""))" aria-label="tag">
            <input name="q" placeholder="search id, kind, key, tag, input" value="\(HTML.escape(filter.search ?? ""))" aria-label="search">
            <button type="submit">Filter</button></form>
            <p class="muted">\(total) job\(total == 1 ? "" : "s") match\(total == 1 ? "es" : "")\
            \(total > jobs.count ? "; the newest \(jobs.count) shown" : "").</p>

            """
        body += HTML.table(
            ["Id", "Queue", "Kind", "State", "Attempts", "Progress", "Updated", "Tags"],
            jobs.map { job in
                [
                    "<a href=\"/jobs/\(job.id.rawValue)\">\(job.id.rawValue)</a>", HTML.escape(job.queue), HTML.escape(job.kind),
                    HTML.badge(job.state), job.maxAttempts.map { "\(job.attempts)/\($0)" } ?? String(job.attempts),
                    Formatting.percent(job.progress), HTML.time(job.updatedAt), HTML.escape(job.tags.joined(separator: ", ")),
                ]
            }, empty: "No jobs match.")
        return PageLayout(title: "Jobs", actionsEnabled: actionsEnabled).render(body: body)
    }
}
