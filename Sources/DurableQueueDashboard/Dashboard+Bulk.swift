import DurableQueue
import DurableQueueInspection
import Hummingbird

/// Bulk actions: `POST /api/jobs/bulk?action=…&state=…` (the jobs page's filter fields, and
/// `dry_run=1` to count only). A form gets a redirect to the jobs page of that filter, which says
/// what changed; any other client gets JSON.
extension Dashboard {
    func bulk(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let action = try RequestValues.bulkAction(request, name: "action") else {
            throw DashboardFailure(.badRequest, "name the action: action=\(BulkAction.allCases.map(\.rawValue).joined(separator: "|"))")
        }
        let filter = try RequestValues.jobFilter(request)
        let selection = try RequestValues.selection(filter)
        let dryRun = query.get("dry_run") == "1"
        let result = try await reading { try await queue.jobs.apply(action, to: selection, dryRun: dryRun) }
        let back =
            "/jobs"
            + HTML.rawQuery(
                RequestValues.queryItems(filter) + [("done", action.rawValue), ("changed", "\(result.changed)"), ("matched", "\(result.matched)")])
        return try await acted(request, back: back) {
            .object([
                ("action", .string(action.rawValue)), ("selection", .string(selection.description)), ("matched", .int(Int64(result.matched))),
                ("changed", .int(Int64(result.changed))), ("dry_run", .bool(result.dryRun)),
            ])
        }
    }

    /// What the jobs page shows of a bulk action: the count of `bulk=…` (a dry run, before the
    /// button that acts), or what `done=…&changed=…&matched=…` reports after it.
    func bulkNotice(_ request: Request, filter: JobFilter, actionsEnabled: Bool) async throws -> JobsPage.BulkNotice? {
        let query = request.uri.queryParameters
        if let done = try RequestValues.bulkAction(request, name: "done"),
            let changed = query.get("changed").flatMap({ Int($0) }), let matched = query.get("matched").flatMap({ Int($0) })
        {
            return .done(BulkResult(action: done, matched: matched, changed: changed, dryRun: false))
        }
        guard actionsEnabled, let action = try RequestValues.bulkAction(request, name: "bulk") else { return nil }
        let selection = try RequestValues.selection(filter)
        return .preview(try await reading { try await queue.jobs.apply(action, to: selection, dryRun: true) }, selection)
    }
}
