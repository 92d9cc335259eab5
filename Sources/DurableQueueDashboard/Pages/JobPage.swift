import DurableQueue
import DurableQueueInspection

/// `/jobs/{id}`: one job's fields, progress, input, output or error, history, durable steps, and
/// its actions.
struct JobPage {
    let job: JobRecord
    let history: [JobEvent]
    let steps: [StepRecord]
    let dependencies: [DependencyRecord]
    let actionsEnabled: Bool

    func render() -> String {
        var fields: [(String, String)] = [
            ("State", HTML.badge(job.state) + (job.cancelRequested && !job.state.isTerminal ? " cancel requested" : "")),
            ("Queue", "<a href=\"/jobs\(HTML.query([("queue", job.queue)]))\">\(HTML.escape(job.queue))</a>"),
            ("Kind", HTML.escape(Formatting.kind(job.kind, version: job.version))), ("Priority", HTML.escape(Formatting.priority(job.priority))),
            ("Attempts", job.maxAttempts.map { "\(job.attempts) of \($0)" } ?? "\(job.attempts) (no limit)"),
            ("Created", HTML.time(job.createdAt)), ("Run at", HTML.time(job.runAt)), ("Updated", HTML.time(job.updatedAt)),
        ]
        if let started = job.startedAt { fields.append(("Started", HTML.time(started))) }
        if let finished = job.finishedAt { fields.append(("Finished", HTML.time(finished))) }
        if let progress = job.progress {
            let percent = Int((min(max(progress, 0), 1) * 100).rounded(.down))
            fields.append(("Progress", "<progress max=\"100\" value=\"\(percent)\"></progress> \(percent)%"))
        }
        if !job.tags.isEmpty {
            fields.append(("Tags", job.tags.map { "<a href=\"/jobs\(HTML.query([("tag", $0)]))\">\(HTML.escape($0))</a>" }.joined(separator: ", ")))
        }
        if let key = job.uniqueKey { fields.append(("Unique key", HTML.escape(key))) }
        if let partition = job.partitionKey { fields.append(("Partition", HTML.escape(partition))) }
        if let group = job.group { fields.append(("Group", "<a href=\"/groups/\(group.rawValue)\">group \(group.rawValue)</a>")) }
        if let owner = job.leaseOwner { fields.append(("Worker", HTML.escape(owner))) }
        if job.state == .handedOff, let handOff = job.handOff { fields.append(("Handed off", HTML.escape(Formatting.handOff(handOff)))) }
        if job.state == .waiting, let signal = job.waitingFor {
            fields.append(("Waiting for", HTML.escape(Formatting.wait(signal: signal, deadline: job.waitDeadline))))
        }
        if let checkpoint = job.checkpoint { fields.append(("Checkpoint", "\(checkpoint.count) bytes")) }

        var body = "<h1>Job \(job.id.rawValue) <span class=\"muted\">\(HTML.escape(job.kind))</span></h1>\n"
        body += "<div class=\"actions\">\(actions())</div>\n"
        body += "<dl>" + fields.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined() + "</dl>\n"
        body += "<h2>Input</h2><pre>\(HTML.escape(HTML.prettyJSON(job.input)))</pre>\n"
        if let output = job.output { body += "<h2>Output</h2><pre>\(HTML.escape(HTML.prettyJSON(output)))</pre>\n" }
        if let error = job.error {
            body += "<h2>Error</h2><pre class=\"error\">\(HTML.escape(error.description))\(error.retryable ? "" : " (not retryable)")</pre>\n"
        }
        body += "<h2>History</h2>\n"
        body += HTML.table(
            ["At", "From", "To", "Attempt", "Worker", "Reason"],
            history.map { event in
                [
                    HTML.time(event.at), event.from.map(HTML.badge) ?? "–", HTML.badge(event.to), String(event.attempt),
                    HTML.escape(event.worker ?? "–"), "<span class=\"wrap\">\(HTML.escape(event.reason ?? ""))</span>",
                ]
            }, empty: "No events.")
        if !dependencies.isEmpty {
            body += "<h2>Dependencies</h2>\n"
            body += HTML.table(
                ["Name", "Job", "On failure", "Outcome"],
                dependencies.map { dependency in
                    [
                        HTML.escape(dependency.name), "<a href=\"/jobs/\(dependency.job.rawValue)\">\(dependency.job.rawValue)</a>",
                        dependency.onFailure.rawValue, dependency.outcome.map(HTML.badge) ?? "<span class=\"badge blocked\">waiting</span>",
                    ]
                }, empty: "No dependencies.")
        }
        if !steps.isEmpty {
            body += "<h2>Steps</h2>\n"
            body += HTML.table(
                ["Recorded", "Name", "Attempt", "Output"],
                steps.map { step in
                    [
                        HTML.time(step.recordedAt), HTML.escape(step.name), String(step.attempt),
                        "<span class=\"wrap\">\(HTML.escape(step.output))</span>",
                    ]
                }, empty: "No steps.")
        }
        return PageLayout(title: "Job \(job.id.rawValue)", actionsEnabled: actionsEnabled).render(body: body)
    }

    private func actions() -> String {
        let back = "/jobs/\(job.id.rawValue)"
        var buttons: [String] = []
        if !job.state.isTerminal && !job.cancelRequested {
            buttons.append(HTML.actionButton("Cancel", path: "/api/jobs/\(job.id.rawValue)/cancel", back: back, enabled: actionsEnabled, danger: true))
        }
        if job.state == .failed || job.state == .cancelled || job.state == .parked {
            buttons.append(HTML.actionButton("Retry", path: "/api/jobs/\(job.id.rawValue)/retry", back: back, enabled: actionsEnabled))
        }
        if !job.state.isTerminal { buttons.append(signalForm(back: back)) }
        return buttons.joined()
    }

    /// A form that sends the job a signal: named as the job waits for, when it waits.
    private func signalForm(back: String) -> String {
        let disabled = actionsEnabled ? "" : " disabled title=\"open the URL with the token to act\""
        let name = job.state == .waiting ? job.waitingFor ?? "" : ""
        return """
            <form method="post" action="/api/jobs/\(job.id.rawValue)/signal" class="action signal">\
            <input type="hidden" name="back" value="\(HTML.escape(back))">\
            <input name="name" placeholder="signal" required value="\(HTML.escape(name))" aria-label="signal name">\
            <input name="payload" placeholder="payload (JSON)" aria-label="payload as JSON">\
            <button type="submit"\(disabled)>Send signal</button></form>
            """
    }
}
