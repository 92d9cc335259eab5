import Foundation
import DurableQueue
import DurableQueueInspection

/// `/jobs`: jobs newest first, filtered by state, queue, kind, tag and error, with a search box;
/// with actions enabled, a bulk action on the jobs of the filter, counted before it is done.
struct JobsPage {
    /// What the page says of a bulk action.
    enum BulkNotice {
        /// How many jobs the action would take (a dry run), before the button that does it.
        case preview(BulkResult, JobSelection)
        /// What an action just did.
        case done(BulkResult)
    }

    let filter: JobFilter
    let jobs: [JobRecord]
    let total: Int
    let queueNames: [String]
    let actionsEnabled: Bool
    var bulk: BulkNotice? = nil

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
            <input name="error" placeholder="error text" value="\(HTML.escape(filter.errorText ?? ""))" aria-label="error text">
            <input name="q" placeholder="search id, kind, key, tag, input" value="\(HTML.escape(filter.search ?? ""))" aria-label="search">
            <button type="submit">Filter</button></form>
            <p class="muted">\(total) job\(total == 1 ? "" : "s") match\(total == 1 ? "es" : "")\
            \(total > jobs.count ? "; the newest \(jobs.count) shown" : "").</p>

            """
        body += bulkSection()
        body += HTML.table(
            ["Id", "Queue", "Kind", "State", "Attempts", "Progress", "Updated", "Tags"],
            jobs.map { job in
                [
                    "<a href=\"/jobs/\(job.id.rawValue)\">\(job.id.rawValue)</a>", HTML.escape(job.queue), HTML.escape(Formatting.kind(job.kind, version: job.version)),
                    HTML.badge(job.state), job.maxAttempts.map { "\(job.attempts)/\($0)" } ?? String(job.attempts),
                    Formatting.percent(job.progress), HTML.time(job.updatedAt), HTML.escape(job.tags.joined(separator: ", ")),
                ]
            }, empty: "No jobs match.")
        return PageLayout(title: "Jobs", actionsEnabled: actionsEnabled).render(body: body)
    }

    /// The bulk action's notice, and the form that counts the jobs of the filter for an action.
    private func bulkSection() -> String {
        var html = ""
        switch bulk {
        case .done(let result):
            html += "<p class=\"notice\" id=\"bulk-done\">\(result.action.rawValue): \(result.changed) of \(result.matched) matching job(s) changed.</p>\n"
        case .preview(let result, let selection):
            let action = result.action.rawValue
            if result.matched == 0 {
                html += "<p class=\"notice\" id=\"bulk-preview\">No job of this filter can be \(Self.past(result.action)) (\(HTML.escape(selection.description))).</p>\n"
            } else {
                let path = "/api/jobs/bulk" + HTML.rawQuery([("action", action)] + RequestValues.queryItems(filter))
                let danger = result.action == .retry ? "" : " class=\"danger\""
                html += """
                    <div class="notice" id="bulk-preview">\(action.capitalized) would take \(result.matched) job(s) \
                    (\(HTML.escape(selection.description))). \
                    <form method="post" action="\(HTML.escape(path))" class="action">\
                    <button type="submit"\(danger)>\(action.capitalized) \(result.matched) job(s)</button></form>\
                    <a href="/jobs\(HTML.query(RequestValues.queryItems(filter)))">Not now</a></div>

                    """
            }
        case nil:
            break
        }
        guard actionsEnabled else { return html }
        guard filter.search == nil else {
            return html + "<p class=\"muted\">Clear the search to act on every job of a filter.</p>\n"
        }
        let hidden = RequestValues.queryItems(filter).compactMap { name, value in
            value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTML.escape($0))\">" }
        }.joined()
        let options = BulkAction.allCases.map { "<option value=\"\($0.rawValue)\">\($0.rawValue) every job of this filter</option>" }.joined()
        return html + """
            <form class="filters bulk" method="get" action="/jobs">\(hidden)\
            <select name="bulk" aria-label="bulk action">\(options)</select>\
            <button type="submit">Count first</button></form>

            """
    }

    private static func past(_ action: BulkAction) -> String {
        switch action {
        case .retry: "retried"
        case .cancel: "cancelled"
        case .delete: "deleted"
        }
    }
}
