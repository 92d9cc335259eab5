import DurableQueue

/// `/groups/{id}`: a sequence or group with each child's state, nested groups inside.
struct GroupPage {
    let group: GroupResult
    let actionsEnabled: Bool

    func render() -> String {
        var body = "<h1>Group \(group.id.rawValue)\(group.name.map { " <span class=\"muted\">\(HTML.escape($0))</span>" } ?? "")</h1>\n"
        body += "<p>\(HTML.badge(group.state))\(group.reason.map { " <span class=\"error\">\(HTML.escape($0))</span>" } ?? "")</p>\n"
        body += Self.children(of: group)
        return PageLayout(title: "Group \(group.id.rawValue)", actionsEnabled: actionsEnabled).render(body: body)
    }

    /// The children as a table; a nested group links to its own page.
    private static func children(of group: GroupResult) -> String {
        HTML.table(
            ["#", "Name", "State", "Job or group", "Error"],
            group.children.map { child in
                let name = HTML.escape(child.name ?? "–")
                switch child.content {
                case .job(let id, let error):
                    return [
                        String(child.position), name, HTML.badge(child.state), "<a href=\"/jobs/\(id.rawValue)\">job \(id.rawValue)</a>",
                        "<span class=\"error\">\(HTML.escape(error?.description ?? ""))</span>",
                    ]
                case .group(let nested):
                    return [
                        String(child.position), name, HTML.badge(child.state),
                        "<a href=\"/groups/\(nested.id.rawValue)\">group \(nested.id.rawValue)</a>",
                        "<span class=\"error\">\(HTML.escape(nested.reason ?? ""))</span>",
                    ]
                }
            }, empty: "No children.")
    }
}
