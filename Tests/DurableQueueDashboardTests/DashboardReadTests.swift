import DurableQueue
import DurableQueueDashboard
import DurableQueueDashboardTestSupport
import DurableQueueTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Hands its attempt to a background session for at most a day.
private struct HandOffToSession: Job {
    static let name = "hand-off"
    func run(_ input: String, context: JobContext) async throws -> String {
        try await context.handOff(to: "background-session", reference: "task-7", deadline: .seconds(86_400)) {}
    }
}

/// The dashboard's pages and their JSON twins, read over HTTP from a real server on 127.0.0.1.
@Suite(.timeLimit(.minutes(2))) struct DashboardReadTests {
    @Test(arguments: StoreBackend.all) func aQueueShowsItsJobsByKey(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            try await fixture.workers.queues.configure(QueueConfiguration("sync", partitionLimit: 1, fairness: .byKey))
            for key in ["acme", "acme", "globex"] {
                _ = try await fixture.workers.enqueue(
                    Echo.self, key, options: EnqueueOptions(queue: "sync", delay: .seconds(3600), partitionKey: key))
            }
            #expect(try await fixture.send("/").body.contains("href=\"/queues/sync/keys\""))
            let page = try await fixture.send("/queues/sync/keys")
            #expect(page.status == 200)
            #expect(page.body.contains("keys take turns") && page.body.contains("<td>acme</td>"), "\(page.body)")
            let keys = try #require(try await fixture.send("/api/queues/sync/keys").json() as? [[String: Any]])
            #expect(keys.map { $0["key"] as? String } == ["acme", "globex"])
            #expect(keys.map { ($0["counts"] as? [String: Int])?["scheduled"] } == [2, 1])
            #expect(try await fixture.send("/queues/nope/keys").status == 404)
        }
    }

    @Test(arguments: StoreBackend.all) func queuesShowTheirCountsByStateAsJSONAndAsAPage(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            let mail = EnqueueOptions(queue: "mail")
            for index in 0..<3 { _ = try await fixture.workers.enqueue(Echo.self, "m\(index)", options: mail) }
            _ = try await fixture.workers.enqueue(Refuse.self, "no", options: mail)
            _ = try await fixture.workers.enqueue(Echo.self, "later", options: EnqueueOptions(queue: "reports", delay: .seconds(3600)))
            _ = try await fixture.workers.runDueJobs(limit: 2)  // m0 and m1 succeed (oldest first)

            let reply = try await fixture.send("/api/queues")
            #expect(reply.status == 200)
            #expect(reply.headers["Content-Type"].first?.hasPrefix("application/json") == true)
            let queues = try #require(try reply.json() as? [[String: Any]])
            let byName = Dictionary(uniqueKeysWithValues: queues.map { ($0["queue"] as? String ?? "", $0["counts"] as? [String: Int] ?? [:]) })
            #expect(byName["mail"]?["succeeded"] == 2)
            #expect(byName["mail"]?["pending"] == 2)
            #expect(byName["reports"]?["scheduled"] == 1)

            let page = try await fixture.send("/")
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"].first?.hasPrefix("text/html") == true)
            #expect(page.body.contains("/jobs?queue=mail&amp;state=succeeded\">2</a>"))
            #expect(page.body.contains("/jobs?queue=reports&amp;state=scheduled\">1</a>"))
            #expect(page.headers["X-Frame-Options"].first == "DENY")
        }
    }

    @Test(arguments: StoreBackend.all) func jobsFilterByStateQueueKindAndTagAndSearchTheirInput(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            let first = try await fixture.workers.enqueue(Echo.self, "invoice for ACME", options: EnqueueOptions(queue: "mail", tags: ["billing"]))
            _ = try await fixture.workers.enqueue(Echo.self, "hello", options: EnqueueOptions(queue: "mail"))
            let refused = try await fixture.workers.enqueue(Refuse.self, "acme again", options: EnqueueOptions(queue: "other"))
            _ = try await fixture.workers.runDueJobs()
            _ = try await fixture.workers.enqueue(Echo.self, "still waiting", options: EnqueueOptions(queue: "mail"))

            func ids(_ query: String) async throws -> [Int64] {
                let reply = try await fixture.send("/api/jobs?" + query)
                #expect(reply.status == 200, "\(query): \(reply.body)")
                return (try reply.object()["jobs"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value }
            }
            #expect(try await ids("state=failed") == [refused.id.rawValue])
            #expect(try await ids("q=acme").sorted() == [first.id.rawValue, refused.id.rawValue])
            #expect(try await ids("q=acme&queue=mail") == [first.id.rawValue])
            #expect(try await ids("kind=refuse") == [refused.id.rawValue])
            #expect(try await ids("tag=billing") == [first.id.rawValue])
            #expect(try await ids("queue=mail&limit=2").count == 2)
            #expect(try await fixture.send("/api/jobs?queue=mail&limit=1").object()["total"] as? Int == 3)

            let page = try await fixture.send("/jobs?state=failed")
            #expect(page.status == 200)
            #expect(page.body.contains("href=\"/jobs/\(refused.id.rawValue)\""))
            #expect(!page.body.contains("href=\"/jobs/\(first.id.rawValue)\""))
            #expect(page.body.contains("<option value=\"failed\" selected>"))
        }
    }

    @Test func oneJobShowsItsInputErrorAndFullHistoryEscaped() async throws {
        try await DashboardFixture.with { fixture in
            let handle = try await fixture.workers.enqueue(Refuse.self, "<script>alert(1)</script>")
            _ = try await fixture.workers.runDueJobs()
            let id = handle.id.rawValue

            let reply = try await fixture.send("/api/jobs/\(id)")
            #expect(reply.status == 200)
            let job = try reply.object()
            #expect(job["state"] as? String == "failed")
            #expect(job["input"] as? String == "<script>alert(1)</script>")
            #expect((job["error"] as? [String: Any])?["message"] as? String == "refused on purpose")
            let history = try #require(job["history"] as? [[String: Any]])
            #expect(history.map { $0["to_state"] as? String ?? "?" } == ["pending", "running", "failed"])

            let page = try await fixture.send("/jobs/\(id)")
            #expect(page.status == 200)
            #expect(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.body.contains("<script>alert"))
            #expect(page.body.contains("refused on purpose"))
            #expect(page.body.contains("<span class=\"badge failed\">failed</span>"))
        }
    }

    @Test func aHandedOffJobShowsItsStateCarrierAndDeadline() async throws {
        try await DashboardFixture.with { fixture in
            fixture.workers.register(HandOffToSession())
            let handle = try await fixture.workers.enqueue(HandOffToSession.self, "video")
            _ = try await fixture.workers.runDueJobs()

            let job = try await fixture.send("/api/jobs/\(handle.id.rawValue)").object()
            #expect(job["state"] as? String == "handed_off")
            #expect(job["handed_off_to"] as? String == "background-session" && job["handoff_reference"] as? String == "task-7")
            let page = try await fixture.send("/jobs/\(handle.id.rawValue)")
            #expect(page.body.contains("<span class=\"badge handed_off\">handed_off</span>"))
            #expect(page.body.contains("to &#39;background-session&#39; as &#39;task-7&#39;, deadline 20"), "\(page.body)")
            let overview = try await fixture.send("/")
            #expect(overview.body.contains("handed_off"))
        }
    }

    @Test(arguments: StoreBackend.all) func groupsAndSchedulesAppearWhenThereAreAny(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            #expect(!(try await fixture.send("/").body.contains("Sequences and groups")))
            let group = try await fixture.workers.enqueue(
                .sequence([.job(Echo.self, "one", name: "first"), .job(Echo.self, "two", name: "second")], name: "pipeline"))
            try await fixture.workers.schedules.save(name: "nightly", Echo.self, input: "report", rule: .cron("0 3 * * *"))

            let groups = try #require(try await fixture.send("/api/groups").json() as? [[String: Any]])
            #expect(groups.map { $0["name"] as? String } == ["pipeline"])
            #expect(groups.first?["children"] as? Int == 2)
            let detail = try await fixture.send("/api/groups/\(group.id.rawValue)").object()
            #expect((detail["children"] as? [[String: Any]])?.map { $0["name"] as? String } == ["first", "second"])
            let schedules = try #require(try await fixture.send("/api/schedules").json() as? [[String: Any]])
            #expect(schedules.map { $0["name"] as? String } == ["nightly"])

            let overview = try await fixture.send("/")
            #expect(overview.body.contains("Sequences and groups") && overview.body.contains("pipeline"))
            #expect(overview.body.contains("nightly") && overview.body.contains("0 3 * * *"))
            let page = try await fixture.send("/groups/\(group.id.rawValue)")
            #expect(page.status == 200 && page.body.contains("first") && page.body.contains("href=\"/jobs/"))
            let step = try #require((detail["children"] as? [[String: Any]])?.first?["job_id"] as? Int)
            #expect(try await fixture.send("/api/jobs/\(step)").object()["group_id"] as? Int == Int(group.id.rawValue))
            #expect(try await fixture.send("/jobs/\(step)").body.contains("<a href=\"/groups/\(group.id.rawValue)\">group \(group.id.rawValue)</a>"))
        }
    }

    @Test func badInputIsRefusedWithAStatusAndAMessage() async throws {
        try await DashboardFixture.with { fixture in
            let cases: [(String, Int, String)] = [
                ("/api/jobs?state=bogus", 400, "unknown state 'bogus'"),
                ("/api/jobs?limit=0", 400, "limit must be a whole number from 1 to 500"),
                ("/api/jobs?limit=lots", 400, "limit must be a whole number"),
                ("/api/jobs?q=" + String(repeating: "x", count: 201), 400, "q is longer than 200 characters"),
                ("/api/jobs?queue=a%01b", 400, "queue contains control characters"),
                ("/api/jobs/abc", 400, "job id must be a positive whole number"),
                ("/api/jobs/0", 400, "job id must be a positive whole number"),
                ("/api/jobs/999", 404, "999"),
                ("/api/groups/999", 404, "999"),
                ("/jobs/999", 404, "999"),
                ("/jobs?state=bogus", 400, "unknown state"),
            ]
            for (path, status, message) in cases {
                let reply = try await fixture.send(path)
                #expect(reply.status == status, "\(path): \(reply.body)")
                #expect(reply.body.contains(message), "\(path): \(reply.body)")
                if path.hasPrefix("/api/") {
                    #expect((try? reply.object())?["error"] is String, "\(path): \(reply.body)")
                }
            }
            #expect(try await fixture.send("/nothing-here").status == 404)
        }
    }

    @Test func aRequestForAnotherHostIsRefused() async throws {
        try await DashboardFixture.with { fixture in
            // A page elsewhere whose DNS name was rebound to 127.0.0.1 sends its own name as Host.
            let rebound = try await fixture.send("/api/queues", headers: [("Host", "attacker.example:80")])
            #expect(rebound.status == 421)
            #expect(try await fixture.send("/api/queues", headers: [("Host", "localhost")]).status == 200)
        }
    }
}
