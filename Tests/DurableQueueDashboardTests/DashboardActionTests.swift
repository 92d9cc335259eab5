import AsyncHTTPClient
import DurableQueue
import DurableQueueDashboard
import DurableQueueDashboardTestSupport
import DurableQueueTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Cancel, retry, pause and resume over HTTP: refused without the token or from another site,
/// carried out through the library with the token (each change in the job's history).
@Suite(.timeLimit(.minutes(2))) struct DashboardActionTests {
    private func history(_ fixture: DashboardFixture, _ id: JobID) async throws -> [String] {
        let job = try await fixture.send("/api/jobs/\(id.rawValue)").object()
        return (job["history"] as? [[String: Any]] ?? []).map { "\($0["to_state"] as? String ?? "?"):\($0["reason"] as? String ?? "")" }
    }

    @Test(arguments: StoreBackend.all) func cancelAndRetryNeedTheTokenAndAppearInTheHistory(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            let job = try await fixture.workers.enqueue(Echo.self, "waiting", options: EnqueueOptions(delay: .seconds(3600)))
            let before = try await history(fixture, job.id)

            let refused = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST)
            #expect(refused.status == 403)
            #expect(refused.body.contains("token"))
            let wrong = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST, headers: [("Authorization", "Bearer 0123456789abcdef")])
            #expect(wrong.status == 403)
            #expect(try await job.state() == .scheduled)
            #expect(try await history(fixture, job.id) == before)

            let cancelled = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST, authorized: true)
            #expect(cancelled.status == 200, "\(cancelled.body)")
            #expect(try cancelled.object()["state"] as? String == "cancelled")
            #expect(try await job.state() == .cancelled)
            #expect(try await history(fixture, job.id).last?.hasPrefix("cancelled:") == true)

            let again = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST, authorized: true)
            #expect(again.status == 409)
            #expect(try again.object()["error"] as? String == "job \(job.id.rawValue) already cancelled: there is nothing to cancel")

            let retried = try await fixture.send("/api/jobs/\(job.id.rawValue)/retry", method: .POST, authorized: true)
            #expect(retried.status == 200, "\(retried.body)")
            #expect(try await job.state() == .pending)
            #expect(try await history(fixture, job.id).count == before.count + 2)
            let notFailed = try await fixture.send("/api/jobs/\(job.id.rawValue)/retry", method: .POST, authorized: true)
            #expect(notFailed.status == 409)
            #expect(try await fixture.send("/api/jobs/4242/cancel", method: .POST, authorized: true).status == 404)
        }
    }

    @Test(arguments: StoreBackend.all) func aQueuesKeyLimitsAreSetAndRemovedFromItsKeysPage(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            try await fixture.workers.queues.configure(QueueConfiguration("sync", partitionLimit: 1))
            let path = "/api/queues/sync/key-limits"
            let refused = try await fixture.send(path, method: .POST, body: #"{"pattern":"vip:*","concurrency":5}"#)
            #expect(refused.status == 403)
            let cookie = ("Cookie", "durableq_token=\(fixture.dashboard.token)")
            let form = [cookie, ("Content-Type", "application/x-www-form-urlencoded"), ("Origin", fixture.base)]
            let set = try await fixture.send(
                path, method: .POST, headers: form,
                body: "pattern=vip%3A*&concurrency=5&throttle_ms=&measured_from=start&rate_count=10&rate_window_ms=60000&back=%2Fqueues%2Fsync%2Fkeys")
            #expect(set.status == 303 && set.headers["Location"].first == "/queues/sync/keys", "\(set)")
            #expect(try await fixture.workers.queues.configuration(of: "sync")?.keyOverrides
                    == ["vip:*": KeyLimits(concurrencyLimit: 5, rateLimit: RateLimit(10, per: .seconds(60)))])
            let every = try await fixture.send(path, method: .POST, body: #"{"pattern":"*","concurrency":2,"throttle_ms":500,"measured_from":"end"}"#, authorized: true)
            #expect(every.status == 200, "\(every.body)")
            #expect(try every.object()["key_throttle_measured_from"] as? String == "end")
            let stored = try #require(try await fixture.workers.queues.configuration(of: "sync"))
            #expect(stored.partitionLimit == 2 && stored.keyThrottle == Throttle(.milliseconds(500), measuredFrom: .end))

            let page = try await fixture.send("/queues/sync/keys").body
            #expect(page.contains("<td>vip:*</td>") && page.contains("10 per 60s") && page.contains("500ms from end"), "\(page)")
            #expect(page.contains("action=\"/api/queues/sync/key-limits\"") && page.contains("name=\"remove\""))

            for bad in [#"{"concurrency":2}"#, #"{"pattern":"*","remove":true}"#, #"{"pattern":"a","concurrency":-1}"#,
                        #"{"pattern":"a","measured_from":"middle"}"#, #"{"pattern":"a","rate_count":3}"#] {
                #expect(try await fixture.send(path, method: .POST, body: bad, authorized: true).status == 400, "\(bad)")
            }
            let pattern = try await fixture.send(path, method: .POST, body: #"{"pattern":"a*b","concurrency":2}"#, authorized: true)
            #expect(pattern.status == 409 && pattern.body.contains("only a trailing"), "\(pattern.body)")
            let removed = try await fixture.send(
                path, method: .POST, headers: form, body: "pattern=vip%3A*&remove=1&back=%2Fqueues%2Fsync%2Fkeys")
            #expect(removed.status == 303)
            #expect(try await fixture.workers.queues.configuration(of: "sync")?.keyOverrides == [:])
            #expect(try await fixture.send("/api/queues/nope/key-limits", method: .POST, body: #"{"pattern":"a"}"#, authorized: true).status == 404)
        }
    }

    @Test(arguments: StoreBackend.all) func aWaitingJobShowsWhatItWaitsForAndASignalFromTheDashboardWakesIt(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            let job = try await fixture.workers.enqueue(Approve.self, "")
            #expect(try await fixture.workers.runDueJobs() == 1)
            #expect(try await job.state() == .waiting)
            let page = try await fixture.send("/jobs/\(job.id.rawValue)").body
            #expect(page.contains("<dt>Waiting for</dt><dd>signal &#39;approved&#39; (no timeout)</dd>") || page.contains("signal 'approved' (no timeout)"), "\(page)")
            #expect(page.contains("action=\"/api/jobs/\(job.id.rawValue)/signal\"") && page.contains("value=\"approved\""))
            #expect(page.contains("badge waiting"))

            let path = "/api/jobs/\(job.id.rawValue)/signal"
            let refused = try await fixture.send(path, method: .POST, body: #"{"name":"approved","payload":"eve"}"#)
            #expect(refused.status == 403)
            #expect(try await job.state() == .waiting)
            let unnamed = try await fixture.send(path, method: .POST, body: #"{"payload":"eve"}"#, authorized: true)
            #expect(unnamed.status == 400, "\(unnamed.body)")

            let cookie = ("Cookie", "durableq_token=\(fixture.dashboard.token)")
            let form = [cookie, ("Content-Type", "application/x-www-form-urlencoded"), ("Origin", fixture.base)]
            let sent = try await fixture.send(path, method: .POST, headers: form, body: "name=approved&payload=%22ada%22&back=%2Fjobs%2F\(job.id.rawValue)")
            #expect(sent.status == 303 && sent.headers["Location"].first == "/jobs/\(job.id.rawValue)", "\(sent)")
            #expect(try await job.state() == .pending)
            #expect(try await history(fixture, job.id).last == "pending:signal 'approved' received")

            let again = try await fixture.send(path, method: .POST, body: #"{"name":"approved","payload":"bob"}"#, authorized: true)
            #expect(again.status == 200, "\(again.body)")
            #expect(try again.object()["result"] as? String == "already sent")
            #expect(try await fixture.workers.runDueJobs() == 1)
            #expect(try await job.result() == "ada")
            let done = try await fixture.send("/jobs/\(job.id.rawValue)").body
            #expect(done.contains("<h2>Steps</h2>") && done.contains("signal approved"), "\(done)")
            let steps = try await fixture.send("/api/jobs/\(job.id.rawValue)").object()["steps"] as? [[String: Any]]
            #expect(steps?.map { $0["name"] as? String } == ["signal approved"])
            let finished = try await fixture.send(path, method: .POST, body: #"{"name":"approved"}"#, authorized: true)
            #expect(finished.status == 409 && finished.body.contains("already succeeded"), "\(finished.body)")
        }
    }

    @Test(arguments: StoreBackend.all) func pauseAndResumeAQueue(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            _ = try await fixture.workers.enqueue(Echo.self, "x", options: EnqueueOptions(queue: "mail"))
            #expect(try await fixture.send("/api/queues/mail/pause", method: .POST).status == 403)
            #expect(try await fixture.workers.queues.configuration(of: "mail")?.isPaused == false)

            let paused = try await fixture.send("/api/queues/mail/pause", method: .POST, authorized: true)
            #expect(paused.status == 200, "\(paused.body)")
            #expect(try paused.object()["paused"] as? Bool == true)
            #expect(try await fixture.workers.queues.configuration(of: "mail")?.isPaused == true)
            #expect(try await fixture.workers.runDueJobs() == 0)  // a paused queue starts nothing

            let resumed = try await fixture.send("/api/queues/mail/resume", method: .POST, authorized: true)
            #expect(try resumed.object()["paused"] as? Bool == false)
            #expect(try await fixture.workers.runDueJobs() == 1)

            let unknown = try await fixture.send("/api/queues/nope/pause", method: .POST, authorized: true)
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("no queue named 'nope'"))
            #expect(try await fixture.workers.queues.configuration(of: "nope") == nil)
        }
    }

    @Test func aDashboardOnAFileItCannotWriteRefusesActionsSayingWhy() async throws {
        try await DashboardFixture.with(readOnly: true) { fixture in
            let job = try await fixture.workers.enqueue(Echo.self, "w", options: EnqueueOptions(delay: .seconds(3600)))
            #expect(try await fixture.send("/api/jobs/\(job.id.rawValue)").status == 200)
            let refused = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST, authorized: true)
            #expect(refused.status == 409, "\(refused.body)")
            #expect(refused.body.contains("read-only"), "\(refused.body)")
            #expect(try await job.state() == .scheduled)
        }
    }

    @Test func theTokenURLSetsASameSiteCookieThatFormsThenUse() async throws {
        try await DashboardFixture.with { fixture in
            let job = try await fixture.workers.enqueue(Echo.self, "w", options: EnqueueOptions(delay: .seconds(3600)))
            let wrong = try await fixture.send("/jobs?token=not-the-token")
            #expect(wrong.status == 403)

            let opened = try await fixture.send("/jobs?state=scheduled&token=\(fixture.dashboard.token)")
            #expect(opened.status == 303)
            #expect(opened.headers["Location"].first == "/jobs?state=scheduled")  // the token leaves the address bar
            let cookie = try #require(opened.headers["Set-Cookie"].first)
            #expect(cookie.contains("durableq_token=\(fixture.dashboard.token)"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let cookieHeader = ("Cookie", "durableq_token=\(fixture.dashboard.token)")

            #expect(try await fixture.send("/jobs/\(job.id.rawValue)").body.contains("disabled title=\"open the URL with the token"))
            #expect(!(try await fixture.send("/jobs/\(job.id.rawValue)", headers: [cookieHeader]).body.contains("disabled")))

            let form = [cookieHeader, ("Content-Type", "application/x-www-form-urlencoded"), ("Origin", fixture.base)]
            let outside = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST, headers: form, body: "back=%2F%2Fevil.example%2F")
            #expect(outside.status == 303)
            #expect(outside.headers["Location"].first == "/jobs/\(job.id.rawValue)")  // never another site
            #expect(try await job.state() == .cancelled)
            let back = try await fixture.send("/api/jobs/\(job.id.rawValue)/retry", method: .POST, headers: form, body: "back=%2Fjobs%3Fstate%3Dpending")
            #expect(back.status == 303)
            #expect(back.headers["Location"].first == "/jobs?state=pending")
        }
    }

    @Test func actionsFromAnotherSiteAreRefusedEvenWithTheCookie() async throws {
        try await DashboardFixture.with { fixture in
            let job = try await fixture.workers.enqueue(Echo.self, "w", options: EnqueueOptions(delay: .seconds(3600)))
            let cookie = ("Cookie", "durableq_token=\(fixture.dashboard.token)")
            let path = "/api/jobs/\(job.id.rawValue)/cancel"
            let fromOrigin = try await fixture.send(path, method: .POST, headers: [cookie, ("Origin", "http://evil.example")])
            #expect(fromOrigin.status == 403)
            #expect(fromOrigin.body.contains("another site"))
            let fromSite = try await fixture.send(path, method: .POST, headers: [cookie, ("Sec-Fetch-Site", "cross-site")])
            #expect(fromSite.status == 403)
            #expect(try await job.state() == .scheduled)
            #expect(try await fixture.send(path, method: .POST, headers: [cookie, ("Sec-Fetch-Site", "same-origin")]).status == 200)
        }
    }

    @Test(arguments: StoreBackend.all) func livePagesHearOfChangesFromOtherProcessesAndTheirOwnActions(_ backend: StoreBackend) async throws {
        try await DashboardFixture.with(backend) { fixture in
            var request = HTTPClientRequest(url: fixture.base + "/api/events")
            request.method = .GET
            let response = try await fixture.client.execute(request, timeout: .seconds(30))
            #expect(response.headers["Content-Type"].first == "text/event-stream")
            var chunks = response.body.makeAsyncIterator()
            var received = ""
            func nextChange() async throws -> String? {
                while true {
                    if let range = received.range(of: "event: change\ndata: ") {
                        let rest = received[range.upperBound...]
                        guard let end = rest.firstIndex(of: "\n") else { break }
                        let token = String(rest[..<end])
                        received = String(rest[end...])
                        return token
                    }
                    break
                }
                guard let chunk = try await chunks.next() else { return nil }
                received += String(buffer: chunk)
                return try await nextChange()
            }
            // The stream's first line comes once it has read the store's first change token.
            while !received.contains("retry: 2000\n\n") {
                guard let chunk = try await chunks.next() else { break }
                received += String(buffer: chunk)
            }
            #expect(received.hasPrefix("retry: 2000\n\n"), "\(received)")
            let job = try await fixture.workers.enqueue(Echo.self, "new", options: EnqueueOptions(delay: .seconds(3600)))  // another connection
            let first = try await nextChange()
            #expect(first != nil)
            _ = try await fixture.send("/api/jobs/\(job.id.rawValue)/cancel", method: .POST, authorized: true)  // the dashboard's own write
            let second = try await nextChange()
            #expect(second != nil && second != first)
        }
    }
}
