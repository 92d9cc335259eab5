import DurableQueue
import DurableQueueDashboard
import DurableQueueDashboardTestSupport
import DurableQueueTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Operations on the dashboard: bulk actions, counted first (a dry run on the jobs page), then
/// carried out through the library by a form or the JSON API, with the token; the failed-jobs and
/// activity pages; a job's dependencies.
@Suite(.timeLimit(.minutes(2))) struct DashboardOperationsTests {
    @Test(arguments: StoreBackend.all) func theJSONAPICountsFirstThenRetriesWhatTheFilterSelects(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            let mail = EnqueueOptions(queue: "mail")
            let refused = try await [0, 1].asyncMap { try await fixture.workers.enqueue(Refuse.self, "r\($0)", options: mail).id }
            let elsewhere = try await fixture.workers.enqueue(Refuse.self, "other", options: EnqueueOptions(queue: "other")).id
            _ = try await fixture.workers.drain()
            let path = "/api/jobs/bulk?action=retry&state=failed&queue=mail"

            #expect(try await fixture.send(path + "&dry_run=1", method: .POST).status == 403)
            let dry = try await fixture.send(path + "&dry_run=1", method: .POST, authorized: true)
            #expect(dry.status == 200, "\(dry.body)")
            #expect(try dry.object()["matched"] as? Int == 2 && dry.object()["changed"] as? Int == 0 && dry.object()["dry_run"] as? Bool == true)
            let done = try await fixture.send(path, method: .POST, authorized: true)
            #expect(try done.object()["changed"] as? Int == 2 && done.object()["selection"] as? String == "state failed, queue mail", "\(done.body)")
            for id in refused {
                let job = try await fixture.send("/api/jobs/\(id.rawValue)").object()
                #expect(job["state"] as? String == "pending")
                let reasons = (job["history"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
                #expect(reasons.last == "retry requested after 1 attempt(s); retry by a bulk action (state failed, queue mail)", "\(reasons)")
            }
            #expect(try await fixture.send("/api/jobs/\(elsewhere.rawValue)").object()["state"] as? String == "failed")

            for bad in ["/api/jobs/bulk?state=failed", "/api/jobs/bulk?action=explode", "/api/jobs/bulk?action=retry&q=mail"] {
                let answer = try await fixture.send(bad, method: .POST, authorized: true)
                #expect(answer.status == 400, "\(bad): \(answer.body)")
            }
        }
    }

    @Test func theJobsPageCountsBeforeItsButtonDeletesAndThenSaysWhatChanged() async throws {
        try await DashboardFixture.with { fixture in
            for index in 0..<3 { _ = try await fixture.workers.enqueue(Echo.self, "e\(index)") }
            let waiting = try await fixture.workers.enqueue(Echo.self, "later", options: EnqueueOptions(delay: .seconds(3600))).id
            _ = try await fixture.workers.drain()
            let cookie = ("Cookie", "durableq_token=\(fixture.dashboard.token)")

            #expect(!(try await fixture.send("/jobs?state=succeeded&bulk=delete").body.contains("would take")), "no count without the token")
            let preview = try await fixture.send("/jobs?state=succeeded&bulk=delete", headers: [cookie]).body
            #expect(preview.contains("Delete would take 3 job(s) (state succeeded)"), "\(preview)")
            #expect(preview.contains(#"action="/api/jobs/bulk?action=delete&amp;state=succeeded""#), "\(preview)")
            #expect(try await fixture.workers.unfinishedJobCount() == 1)

            let form = [cookie, ("Content-Type", "application/x-www-form-urlencoded"), ("Origin", fixture.base)]
            let posted = try await fixture.send("/api/jobs/bulk?action=delete&state=succeeded", method: .POST, headers: form, body: "")
            #expect(posted.status == 303, "\(posted)")
            let location = try #require(posted.headers["Location"].first)
            #expect(location == "/jobs?state=succeeded&done=delete&changed=3&matched=3")
            let after = try await fixture.send(location, headers: [cookie]).body
            #expect(after.contains("delete: 3 of 3 matching job(s) changed.") && after.contains("No jobs match."), "\(after)")
            #expect(try await fixture.send("/api/jobs/\(waiting.rawValue)").object()["state"] as? String == "scheduled")
        }
    }

    @Test func aJobPageShowsWhatTheJobWaitsFor() async throws {
        try await DashboardFixture.with { fixture in
            let parent = try await fixture.workers.enqueue(Echo.self, "later", options: EnqueueOptions(delay: .seconds(3600)))
            var options = EnqueueOptions()
            options.dependsOn = [Dependency("first", on: parent)]
            let dependent = try await fixture.workers.enqueue(Echo.self, "after", options: options)
            let page = try await fixture.send("/jobs/\(dependent.id.rawValue)").body
            #expect(page.contains("<h2>Dependencies</h2>") && page.contains(#"<a href="/jobs/\#(parent.id.rawValue)">"#), "\(page)")
            #expect(page.contains(#"<span class="badge blocked">waiting</span>"#) && page.contains("badge blocked\">blocked"), "\(page)")
            let json = try await fixture.send("/api/jobs/\(dependent.id.rawValue)").object()
            let edges = try #require(json["dependencies"] as? [[String: Any]])
            #expect(edges.first?["job_id"] as? Int == Int(parent.id.rawValue) && edges.first?["outcome"] as? String == "waiting")
        }
    }

    @Test(arguments: StoreBackend.all) func theActivityPageChartsTheLastHourFromTheHistory(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            for index in 0..<4 { _ = try await fixture.workers.enqueue(Echo.self, "e\(index)", options: EnqueueOptions(queue: "mail")) }
            _ = try await fixture.workers.enqueue(Refuse.self, "no", options: EnqueueOptions(queue: "mail"))
            try await fixture.workers.queues.configure(QueueConfiguration("held"))
            try await fixture.workers.queues.pause("held")
            _ = try await fixture.workers.enqueue(Echo.self, "waits", options: EnqueueOptions(queue: "held"))
            _ = try await fixture.workers.drain()

            let answer = try await fixture.send("/api/activity")
            let activity = try #require(try answer.json() as? [[String: Any]], "\(answer.body)")
            let mail = try #require(activity.first { $0["queue"] as? String == "mail" })
            let minutes = try #require(mail["per_minute"] as? [[String: Int]])
            #expect(minutes.count == 60)
            let totals = minutes.reduce(into: [String: Int]()) { totals, minute in for (outcome, count) in minute { totals[outcome, default: 0] += count } }
            #expect(totals == ["succeeded": 4, "failed": 1, "retried": 0, "cancelled": 0], "\(totals)")
            #expect((mail["wait"] as? [String: Int])?["count"] == 5 && (mail["run"] as? [String: Int])?["count"] == 5, "\(mail)")
            let held = try #require(activity.first { $0["queue"] as? String == "held" })
            #expect(held["oldest_waiting_ms"] as? Int ?? -1 >= 0)

            let page = try await fixture.send("/activity").body
            #expect(page.contains("<h2>mail</h2>") && page.contains("<svg class=\"chart\"") && page.contains("aria-label=\"5 attempts ended in the last hour on queue mail"), "\(page)")
            #expect(page.contains("<title>4 succeeded,") && page.contains("<title>1 failed,"), "\(page)")
            #expect(page.contains("oldest waiting: "))
        }
    }

    @Test func theFailedJobsPageShowsErrorsAndLeadsToARetryOfAll() async throws {
        try await DashboardFixture.with { fixture in
            _ = try await fixture.workers.enqueue(Refuse.self, "no", options: EnqueueOptions(queue: "mail"))
            _ = try await fixture.workers.enqueue(Echo.self, "yes")
            _ = try await fixture.workers.drain()
            let page = try await fixture.send("/failed").body
            #expect(page.contains("1 failed job.") && page.contains("<b>Refusal</b>: refused on purpose"), "\(page)")
            #expect(!page.contains("retry-all"), "no action without the token")
            let cookie = ("Cookie", "durableq_token=\(fixture.dashboard.token)")
            let acting = try await fixture.send("/failed?queue=mail", headers: [cookie]).body
            #expect(acting.contains(#"href="/jobs?state=failed&amp;queue=mail&amp;bulk=retry">Retry all 1 failed job(s)"#), "\(acting)")
            #expect(try await fixture.send("/failed?queue=other").body.contains("No job has failed."))
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
