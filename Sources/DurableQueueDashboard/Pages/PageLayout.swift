/// The frame of every page: header, navigation, the live-update script, and a notice when actions
/// are not enabled.
struct PageLayout {
    let title: String
    let actionsEnabled: Bool

    /// The whole page around `body` (HTML).
    func render(body: String) -> String {
        let notice =
            actionsEnabled
            ? "" : "<p class=\"notice\">Read-only: open the URL <code>durableq serve</code> printed (it carries the token) to cancel, retry or pause.</p>"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title)) · DurableQueue</title>
            <link rel="stylesheet" href="/assets/dashboard.css">
            <script src="/assets/dashboard.js" defer></script>
            </head><body>
            <header><a class="brand" href="/">DurableQueue</a><nav><a href="/">Queues</a><a href="/jobs">Jobs</a><a href="/failed">Failed</a><a href="/activity">Activity</a></nav>\
            <span id="live" class="live" title="updates as the queue changes">static</span></header>
            <main id="main">
            \(notice)
            \(body)
            </main>
            </body></html>
            """
    }
}
