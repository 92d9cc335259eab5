import DurableQueue
import DurableQueueInspection

/// `/failed`: failed jobs newest first, with their last error, by queue; with actions enabled, a
/// link that counts them for a bulk retry (the jobs page's dry run) before retrying them all.
struct FailedPage {
    let queueName: String?
    let jobs: [JobRecord]
    let total: Int
    let queueNames: [String]
    let actionsEnabled: Bool

    func render() -> String {
        let queueOptions = ([""] + queueNames).map { value in
            "<option value=\"\(HTML.escape(value))\"\(value == (queueName ?? "") ? " selected" : "")>\(value.isEmpty ? "any queue" : HTML.escape(value))</option>"
        }.joined()
        let filter = HTML.query([("state", JobState.failed.rawValue), ("queue", queueName)])
        var body = """
            <h1>Failed jobs</h1>
            <form class="filters" method="get" action="/failed">
            <select name="queue" aria-label="queue">\(queueOptions)</select><button type="submit">Filter</button></form>
            <p class="muted">\(total) failed job\(total == 1 ? "" : "s")\(total > jobs.count ? "; the newest \(jobs.count) shown" : "").\
             <a href="/jobs\(filter)">Filter them further</a>.</p>

            """
        if actionsEnabled && total > 0 {
            let retry = HTML.query([("state", JobState.failed.rawValue), ("queue", queueName), ("bulk", BulkAction.retry.rawValue)])
            body += "<p class=\"actions\"><a class=\"button\" id=\"retry-all\" href=\"/jobs\(retry)\">Retry all \(total) failed job(s)…</a></p>\n"
        }
        body += HTML.table(
            ["Id", "Queue", "Kind", "Attempts", "Finished", "Error"],
            jobs.map { job in
                [
                    "<a href=\"/jobs/\(job.id.rawValue)\">\(job.id.rawValue)</a>", HTML.escape(job.queue), HTML.escape(job.kind),
                    job.maxAttempts.map { "\(job.attempts)/\($0)" } ?? String(job.attempts), HTML.time(job.finishedAt),
                    job.error.map { "<span class=\"wrap\"><b>\(HTML.escape($0.type))</b>: \(HTML.escape($0.message))</span>" } ?? "",
                ]
            }, empty: "No job has failed.")
        return PageLayout(title: "Failed jobs", actionsEnabled: actionsEnabled).render(body: body)
    }
}
