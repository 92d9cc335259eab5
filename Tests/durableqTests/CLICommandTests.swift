import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A file with jobs in known states, made through the store, in `directory`/durableq.sqlite:
/// on queue "mail", a pending job tagged "news" (enqueued now), a job that succeeded and one that
/// failed in 1970, and a running one; queue "api" is throttled and paused.
private func seed(_ directory: TemporaryDirectory) async throws -> (pending: JobID, succeeded: JobID, failed: JobID, running: JobID) {
    let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
    let succeeded = try await store.add(job("mail", kind: "send", input: #"{"to":"ada@example.com"}"#))
    _ = try await store.take("mail")
    try await store.succeed(succeeded, now: 2_000)
    let failed = try await store.add(job("mail", kind: "send", maxAttempts: 1))
    _ = try await store.take("mail")
    let failure = JobFailure(type: "SMTPError", message: "mailbox full\nline two", retryable: false)
    _ = try await store.finish([FinishedAttempt(.first(failed), owner: "w1", outcome: .failed(failure))], now: 3_000)
    let running = try await store.add(job("mail", kind: "send"))
    _ = try await store.take("mail", owner: "elsewhere")
    let now = Date().millisecondsSince1970
    let pending = try await store.add(job("mail", kind: "send", tags: ["news"]), now: now)
    try await store.configure(
        QueueConfiguration(
            "api", throttle: Throttle(.seconds(1)), rateLimit: RateLimit(5, per: .seconds(60)), aging: Aging(every: .seconds(30)),
            partitionLimit: 2), now: now)
    try await store.setSuspended(true, queue: "api", now: now)
    return (pending, succeeded, failed, running)
}

@Suite(.timeLimit(.minutes(2))) struct CLICommandTests {
    @Test func readCommandsOnAMissingFileFailNamingItAndCreateNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for command in [["status"], ["list"], ["show", "1"], ["watch", "--count", "1"], ["cancel", "1"], ["pause", "q"]] {
            let result = try await durableq(command + ["--db", "missing.sqlite"], in: directory.url.path)
            #expect(result.status == 1, "\(command): \(result)")
            #expect(result.stderr.contains("missing.sqlite") && result.stderr.contains("does not exist"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
        }
    }

    @Test func aFileThatIsNotADurableQueueOrIsTooNewIsRefusedWithItsCause() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("hello, not a database, but long enough to look like a header........".utf8).write(to: directory.url.appendingPathComponent("text.sqlite"))
        let text = try await durableq(["status", "--db", "text.sqlite"], in: directory.url.path)
        #expect(text.status == 1)
        #expect(text.stderr.contains("text.sqlite") && text.stderr.contains("not a database"), "\(text.stderr)")

        _ = try SQLiteJobStore(path: directory.path("new.sqlite"))
        let connection = try SQLiteConnection(path: directory.path("new.sqlite"), options: StorageOptions())
        try connection.executeScript("PRAGMA user_version = 999")
        let newer = try await durableq(["list", "--db", "new.sqlite"], in: directory.url.path)
        #expect(newer.status == 1)
        #expect(newer.stderr.contains("new.sqlite") && newer.stderr.contains("newer"), "\(newer.stderr)")
    }

    @Test func statusListAndShowPrintJSONForScripts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ids = try await seed(directory)
        let here = directory.url.path

        let status = try await durableq(["status", "--json"], in: here).objects()
        #expect(status.map { $0["queue"] as? String } == ["api", "mail"])
        let api = try #require(status.first)
        #expect(api["paused"] as? Bool == true && api["throttle_interval_ms"] as? Int == 1000)
        #expect(api["rate_limit_count"] as? Int == 5 && api["concurrency_limit"] as? Int == 0)
        let mailCounts = try #require(status.last?["counts"] as? [String: Int])
        #expect(mailCounts == ["scheduled": 0, "pending": 1, "blocked": 0, "running": 1, "succeeded": 1, "failed": 1, "cancelled": 0, "handed_off": 0,
                             "waiting": 0, "parked": 0])

        let all = try await durableq(["list", "--json"], in: here).objects()
        #expect(all.map { $0["id"] as? Int } == [ids.pending, ids.running, ids.failed, ids.succeeded].map { Int($0.rawValue) })
        let tagged = try await durableq(["list", "--tag", "news", "--json"], in: here).objects()
        #expect(tagged.map { $0["id"] as? Int } == [Int(ids.pending.rawValue)])
        #expect(tagged.first?["tags"] as? [String] == ["news"])
        let failed = try await durableq(["list", "--state", "failed", "--queue", "mail", "--limit", "5", "--json"], in: here).objects()
        #expect(failed.map { $0["state"] as? String } == ["failed"])
        #expect(try await durableq(["list", "--queue", "api", "--json"], in: here).objects().isEmpty)
        #expect(try await durableq(["list", "--limit", "2", "--json"], in: here).objects().count == 2)

        let shown = try await durableq(["show", "\(ids.failed)", "--json"], in: here).object()
        #expect(shown["state"] as? String == "failed" && shown["attempts"] as? Int == 1)
        let error = try #require(shown["error"] as? [String: Any])
        #expect(error["type"] as? String == "SMTPError" && error["message"] as? String == "mailbox full\nline two")
        let history = try #require(shown["history"] as? [[String: Any]])
        #expect(history.map { $0["to_state"] as? String } == ["pending", "running", "failed"])
        #expect(history.first?["from_state"] is NSNull)
        let input = try await durableq(["show", "\(ids.succeeded)", "--json"], in: here).object()["input"] as? [String: Any]
        #expect(input?["to"] as? String == "ada@example.com")
    }

    @Test func listPoisonedShowsOnlyTheJobsThatFailedAsPoison() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ids = try await seed(directory)
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        let poison = try await store.add(job("mail", kind: "send", maxAttempts: nil), now: 4_000)
        for round in 0..<3 {
            let now = Int64(5_000 + 3_000 * round)
            _ = try await store.claim(queue: "mail", limit: 1, owner: "dead", leaseDuration: 1_000, now: now, excluding: [ids.running, ids.pending])
            _ = try await store.recoverExpiredLeases(now: now + 2_000, lostAttemptLimit: 3)
        }
        let here = directory.url.path

        let listed = try await durableq(["list", "--poisoned", "--json"], in: here).objects()
        #expect(listed.map { $0["id"] as? Int } == [Int(poison.rawValue)], "\(listed)")
        #expect((listed.first?["error"] as? [String: Any])?["type"] as? String == "PoisonJob")
        #expect(try await durableq(["list", "--state", "failed", "--json"], in: here).objects().count == 2)
        #expect(try await durableq(["list", "--poisoned", "--queue", "api", "--json"], in: here).objects().isEmpty)
        let table = try await durableq(["list", "--poisoned"], in: here)
        #expect(table.status == 0 && table.stdout.contains("\(poison)") && !table.stdout.contains("\(ids.failed) "), "\(table.stdout)")
        let refused = try await durableq(["list", "--poisoned", "--state", "pending"], in: here)
        #expect(refused.status != 0 && refused.stderr.contains("poison jobs are failed"), "\(refused.stderr)")
    }

    @Test func bulkActionsCountFirstThenChangeTheJobsAFilterMatches() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ids = try await seed(directory)
        let here = directory.url.path

        let dry = try await durableq(["bulk", "retry", "--queue", "mail", "--error", "MAILBOX", "--dry-run", "--json"], in: here).object()
        #expect(dry["matched"] as? Int == 1 && dry["changed"] as? Int == 0 && dry["dry_run"] as? Bool == true, "\(dry)")
        #expect(dry["selection"] as? String == #"queue mail, error contains "MAILBOX""#)
        let retried = try await durableq(["bulk", "retry", "--queue", "mail", "--error", "MAILBOX"], in: here)
        #expect(retried.status == 0 && retried.stdout.contains("retry: 1 of 1 matching job(s) changed"), "\(retried)")
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        #expect(try await store.job(ids.failed).state == .pending)
        #expect(try await store.history(of: ids.failed).last?.reason?.contains("retry by a bulk action") == true)

        // Created more than an hour ago (the seed's jobs at 1970's first seconds): the running job, asked to stop.
        let cancelled = try await durableq(["bulk", "cancel", "--kind", "send", "--created-before", "1h", "--json"], in: here).object()
        #expect(cancelled["matched"] as? Int == 2 && cancelled["changed"] as? Int == 2, "\(cancelled)")
        #expect(try await store.job(ids.running).cancelRequested)
        #expect(try await store.job(ids.pending).state == .pending)

        let deleted = try await durableq(["bulk", "delete", "--state", "succeeded", "--created-from", "1970-01-01T00:00:00Z", "--json"], in: here).object()
        #expect(deleted["changed"] as? Int == 1, "\(deleted)")
        await #expect(throws: DurableQueueError.self) { _ = try await store.job(ids.succeeded) }

        for bad in [["bulk", "explode"], ["bulk", "retry", "--created-from", "yesterday"]] {
            let refused = try await durableq(bad, in: here)
            #expect(refused.status == 2, "\(bad): \(refused)")
        }
    }

    @Test func showListsDependenciesAndRetryGraphRetriesWhatFailedAndWhatItCancelled() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        let parent = try await store.add(job("mail", kind: "send", maxAttempts: 1))
        var waiting = job("mail", kind: "send")
        waiting.dependencies = [Dependency("parent", on: parent)]
        let dependent = try await store.add(waiting)
        let here = directory.url.path

        let shown = try await durableq(["show", "\(dependent)", "--json"], in: here).object()
        let edges = try #require(shown["dependencies"] as? [[String: Any]])
        #expect(edges.count == 1 && edges[0]["name"] as? String == "parent" && edges[0]["outcome"] as? String == "waiting", "\(edges)")
        #expect(shown["state"] as? String == "blocked")
        let human = try await durableq(["show", "\(dependent)"], in: here).stdout
        #expect(human.contains("dependencies") && human.contains("waiting"), "\(human)")

        _ = try await store.take("mail")
        let failure = JobFailure(type: "SMTPError", message: "mailbox full", retryable: false)
        _ = try await store.finish([FinishedAttempt(.first(parent), owner: "w1", outcome: .failed(failure))], now: 3_000)
        #expect(try await store.job(dependent).state == .cancelled)
        let retried = try await durableq(["retry", "\(dependent)", "--graph"], in: here)
        #expect(retried.status == 0 && retried.stdout == "job \(parent): pending\njob \(dependent): blocked\n", "\(retried)")
        #expect(try await store.job(dependent).state == .blocked)
        let nothing = try await durableq(["retry", "\(dependent)", "--graph", "--only-failed"], in: here)
        #expect(nothing.stdout.contains("nothing changed"), "\(nothing)")
        #expect(try await durableq(["retry", "\(dependent)", "--only-failed"], in: here).status == 2)
        #expect(try await durableq(["retry", "\(dependent)", "--graph", "--group"], in: here).status == 2)
        let notAGroup = try await durableq(["retry", "4242", "--group"], in: here)
        #expect(notAGroup.status == 1 && notAGroup.stderr.contains("4242"), "\(notAGroup)")
    }

    @Test func humanOutputIsATableAndShowsTheHistory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ids = try await seed(directory)
        let here = directory.url.path

        let status = try await durableq(["status"], in: here)
        #expect(status.status == 0)
        let lines = status.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("QUEUE") == true && lines.count == 3)
        #expect(lines[1].contains("api") && lines[1].contains("yes") && lines[1].contains("1 per 1s from start, 5 per 60s, 2 per key, aging every 30s"))

        let list = try await durableq(["list"], in: here)
        #expect(list.stdout.split(separator: "\n").count == 5)
        #expect(list.stdout.contains("failed") && list.stdout.contains("news"))

        let show = try await durableq(["show", "\(ids.failed)"], in: here)
        #expect(show.status == 0)
        #expect(show.stdout.contains("SMTPError: mailbox full line two"))
        #expect(show.stdout.contains("history") && show.stdout.contains("running  failed"))

        let watch = try await durableq(["watch", "--count", "2", "--interval", "50ms"], in: here)
        #expect(watch.status == 0 && watch.stdout.components(separatedBy: "QUEUE").count == 3, "\(watch.stdout)")
        #expect(!watch.stdout.contains("\u{1B}"), "no terminal codes when the output is not a terminal")
    }

    @Test func aHandedOffJobShowsWhereItWentInStatusShowAndJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        let id = try await store.add(job("media", kind: "download"))
        let claimed = try #require(try await store.take("media").first)
        let target = HandOffRequest(carrier: "background-session", reference: "task-7", timeout: nil)
        #expect(try await store.handOff(claimed.attemptID, owner: "w1", to: target, now: 1_500) == .handedOff)
        let here = directory.url.path

        let status = try await durableq(["status"], in: here)
        let lines = status.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(status.stdout.contains("HANDED OFF"))
        // QUEUE MODE LIMIT PAUSED SCHEDULED PENDING BLOCKED RUNNING, then the handed-off count.
        #expect(lines.last.map { Array($0.prefix(9)) } == ["media", "fifo", "-", "no", "0", "0", "0", "0", "1"], "\(status.stdout)")
        let show = try await durableq(["show", "\(id)"], in: here)
        #expect(show.stdout.contains("state       handed_off") || show.stdout.contains("handed_off"))
        #expect(show.stdout.contains("handed off  to 'background-session' as 'task-7'"), "\(show.stdout)")
        #expect(show.stdout.contains("running  handed_off"))
        let json = try await durableq(["show", "\(id)", "--json"], in: here)
        #expect(json.stdout.contains("\"handoff_reference\":\"task-7\""), "\(json.stdout)")
    }

    @Test func aWaitingJobShowsWhatItWaitsForAndASignalFromTheCommandWakesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        let id = try await store.add(job("orders", kind: "record"))
        let done = try await store.add(job("orders", kind: "record"))
        let claimed = [try #require(try await store.take("orders").first), try #require(try await store.take("orders").first)]
        #expect(try await store.waitForSignal(claimed[0].attemptID, owner: "w1", name: "approved", timeout: 90_000_000 - 1_500, now: 1_500) == .ended(.waiting))
        try await store.finish([FinishedAttempt(claimed[1].attemptID, owner: "w1", outcome: .succeeded(output: "1"))], now: 1_600)
        let here = directory.url.path

        let status = try await durableq(["status"], in: here)
        let lines = status.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(status.stdout.contains("WAITING"))
        // QUEUE MODE LIMIT PAUSED SCHEDULED PENDING BLOCKED RUNNING HANDED-OFF, then the waiting count.
        #expect(lines.last.map { Array($0.prefix(10)) } == ["orders", "fifo", "-", "no", "0", "0", "0", "0", "0", "1"], "\(status.stdout)")
        let show = try await durableq(["show", "\(id)"], in: here)
        #expect(show.stdout.contains("waiting for  signal 'approved' until 1970-01-02T01:00:00.000Z"), "\(show.stdout)")
        #expect(try await durableq(["show", "\(id)", "--json"], in: here).stdout.contains("\"waiting_for\":\"approved\""))

        let sent = try await durableq(["signal", "\(id)", "approved", #"{"clerk":"ada"}"#], in: here)
        #expect(sent.status == 0 && sent.stdout.contains("signal 'approved' received; pending"), "\(sent)")
        #expect(try await store.job(id).state == .pending)
        let again = try await durableq(["signal", "\(id)", "approved", "1"], in: here)
        #expect(again.status == 0 && again.stdout.contains("already"), "\(again)")
        let kept = try await durableq(["signal", "\(id)", "later"], in: here)
        #expect(kept.status == 0 && kept.stdout.contains("kept for its wait"), "\(kept)")
        let finished = try await durableq(["signal", "\(done)", "approved"], in: here)
        #expect(finished.status == 1 && finished.stderr.contains("has finished (succeeded)"), "\(finished)")
        let notJSON = try await durableq(["signal", "\(id)", "other", "{clerk"], in: here)
        #expect(notJSON.status == 1 && notJSON.stderr.contains("is not JSON"), "\(notJSON)")
        let claimedAgain = try #require(try await store.take("orders", now: 2_000).first)
        #expect(
            try await store.waitForSignal(claimedAgain.attemptID, owner: "w1", name: "approved", timeout: nil, now: 2_100)
                == .received(payload: #"{"clerk":"ada"}"#))
        // What the wait got is a step, which show lists.
        let shown = try await durableq(["show", "\(id)"], in: here).stdout
        #expect(shown.contains("steps") && shown.contains(#"signal approved  1        {"payload":{"clerk":"ada"}}"#), "\(shown)")
        let steps = try #require(try await durableq(["show", "\(id)", "--json"], in: here).object()["steps"] as? [[String: Any]])
        #expect(steps.map { $0["name"] as? String } == ["signal approved"])
        #expect((steps.first?["output"] as? [String: Any])?["payload"] as? [String: String] == ["clerk": "ada"])
        #expect(try await store.historyIsConsistent())
    }

    @Test func statusByKeyCountsAQueuesUnfinishedJobsPerPartitionKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        for key in ["host-a", "host-a", nil, "host-b"] {
            var new = job("downloads", kind: "download")
            new.partitionKey = key
            _ = try await store.enqueue([new], now: 1_000)
        }
        _ = try await store.take("downloads")
        let here = directory.url.path

        let table = try await durableq(["status", "--by-key", "downloads"], in: here)
        let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        // KEY SCHEDULED PENDING BLOCKED RUNNING HANDED OFF WAITING
        #expect(rows.dropFirst().map { Array($0.prefix(5)) } == [["-", "0", "1", "0", "0"], ["host-a", "0", "1", "0", "1"], ["host-b", "0", "1", "0", "0"]], "\(table.stdout)")
        let json = try await durableq(["status", "--by-key", "downloads", "--json"], in: here).objects()
        #expect(json.map { $0["key"] as? String } == [nil, "host-a", "host-b"])
        #expect((json[1]["counts"] as? [String: Int])?["running"] == 1)
        let unknown = try await durableq(["status", "--by-key", "nope"], in: here)
        #expect(unknown.status == 1 && unknown.stderr.contains("no queue named 'nope'"), "\(unknown)")
    }

    @Test func keyLimitsAreSetListedAndRemovedAndAKeysNextStartShows() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        for key in ["host-a", "host-a", "premium:b"] {
            var new = job("downloads", kind: "download")
            new.partitionKey = key
            _ = try await store.enqueue([new], now: 1_000)
        }
        let here = directory.url.path
        let set = try await durableq(["key-limits", "downloads", "*", "--concurrency", "1", "--throttle", "1h"], in: here)
        #expect(set.status == 0 && set.stdout.contains("3600s from start"), "\(set)")
        let premium = try await durableq(["key-limits", "downloads", "premium:*", "--concurrency", "5", "--rate", "10/1m"], in: here)
        #expect(premium.status == 0, "\(premium)")
        let rows = try await durableq(["key-limits", "downloads"], in: here).stdout.split(separator: "\n")
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        // PATTERN CONCURRENCY THROTTLE RATE
        #expect(rows.dropFirst().map { $0.first } == ["*", "premium:*"] && rows.last?.suffix(3) == ["10", "per", "60s"], "\(rows)")
        let stored = try #require(try await store.queue(named: "downloads"))
        #expect(stored.keyThrottle == Throttle(.seconds(3_600)) && stored.partitionLimit == 1)
        #expect(stored.keyOverrides == ["premium:*": KeyLimits(concurrencyLimit: 5, rateLimit: RateLimit(10, per: .seconds(60)))])

        _ = try await store.take("downloads", limit: 5, now: Date().millisecondsSince1970)
        let byKey = try await durableq(["status", "--by-key", "downloads"], in: here).stdout
        let hostA = byKey.split(separator: "\n").first { $0.hasPrefix("host-a") } ?? ""
        #expect(hostA.hasSuffix("in 1h00m"), "an hour's throttle, just started: \(byKey)")
        let json = try await durableq(["status", "--by-key", "downloads", "--json"], in: here).objects()
        #expect(json.first { $0["key"] as? String == "host-a" }?["next_start_at"] is String, "\(json)")

        #expect(try await durableq(["key-limits", "downloads", "premium:*", "--remove"], in: here).status == 0)
        #expect(try await store.queue(named: "downloads")?.keyOverrides == [:])
        for usage in [["key-limits", "downloads", "--concurrency", "2"], ["key-limits", "downloads", "a", "--rate", "10"],
                      ["key-limits", "downloads", "*", "--remove"]] {
            #expect(try await durableq(usage, in: here).status == 2, "\(usage)")
        }
        let refused = try await durableq(["key-limits", "downloads", "a*b", "--concurrency", "2"], in: here)
        #expect(refused.status == 1 && refused.stderr.contains("only a trailing '*'"), "\(refused)")
    }

    @Test func badInputIsAUsageErrorOrANamedFailureAndChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ids = try await seed(directory)
        let here = directory.url.path
        for usage in [
            ["list", "--limit", "0"], ["list", "--state", "sleeping"], ["prune", "--older-than", "7x"], ["prune"],
            ["prune", "--older-than", "1d", "--state", "pending"], ["cancel"], ["cancel", "1", "--all"], ["show", "abc"],
            ["frobnicate"], ["download"], ["download", "ftp://example.com/x"], ["download", "http://a/x", "http://a/y", "--sha256", String(repeating: "0", count: 64)],
        ] {
            let result = try await durableq(usage, in: here)
            #expect(result.status == 2, "\(usage): \(result)")
            #expect(!result.stderr.isEmpty)
        }
        for failing in [["show", "999"], ["cancel", "999"], ["retry", "999"], ["retry", "\(ids.pending)"], ["pause", "nosuchqueue"]] {
            let result = try await durableq(failing, in: here)
            #expect(result.status == 1, "\(failing): \(result)")
            #expect(result.stderr.contains("durableq.sqlite"), "\(failing): \(result.stderr)")
        }
        #expect(try await durableq(["show", "999"], in: here).stderr.contains("no job has id 999"))
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        #expect(try await store.job(ids.pending).state == .pending)
        #expect(try await store.historyIsConsistent())
    }

    @Test func changesGoThroughTheLibraryAndLeaveTheirEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ids = try await seed(directory)
        let here = directory.url.path
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))

        #expect(try await durableq(["cancel", "\(ids.pending)"], in: here).stdout == "job \(ids.pending): cancelled\n")
        #expect(try await store.transitions(ids.pending) == ["nil>pending", "pending>cancelled"])
        let running = try await durableq(["cancel", "\(ids.running)"], in: here)
        #expect(running.stdout.contains("cancel requested"))
        #expect(try await store.job(ids.running).cancelRequested)

        let retried = try await durableq(["retry", "\(ids.failed)"], in: here)
        #expect(retried.status == 0, "\(retried)")
        let job = try await store.job(ids.failed)
        #expect(job.state == .pending && job.attempts == 0)
        let last = try #require(try await store.history(of: ids.failed).last)
        #expect(last.from == .failed && last.to == .pending && last.reason?.contains("retry") == true)
        #expect(try await durableq(["retry", "\(ids.pending)"], in: here).status == 0, "a cancelled job can be retried too")

        #expect(try await durableq(["resume", "api"], in: here).status == 0)
        #expect(try await store.queue(named: "api")?.isPaused == false)
        #expect(try await durableq(["pause", "mail"], in: here).stdout == "queue mail: paused\n")
        #expect(try await store.queue(named: "mail")?.isPaused == true)

        let tagged = try await durableq(["cancel", "--tag", "news"], in: here)
        #expect(tagged.stdout == "cancelled 1 job(s)\n")
        #expect(try await durableq(["cancel", "--queue", "mail"], in: here).stdout == "cancelled 2 job(s)\n")
        #expect(try await durableq(["cancel", "--all"], in: here).stdout == "cancelled 1 job(s)\n", "the running job, asked again")

        // The job that succeeded in 1970 is old enough; nothing else has finished a week ago.
        let pruned = try await durableq(["prune", "--older-than", "7d", "--state", "succeeded"], in: here)
        #expect(pruned.stdout == "pruned 1 job(s) finished more than 7d ago\n", "\(pruned)")
        await #expect(throws: DurableQueueError.self) { try await store.job(ids.succeeded) }
        #expect(try await durableq(["prune", "--older-than", "0s"], in: here).stdout.hasPrefix("pruned 2 job(s)"))
        #expect(try await store.historyIsConsistent())
    }

    @Test func aParkedJobIsCountedListedByKindAndVersionAndRetriedFromTheCommand() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteJobStore(path: directory.path("durableq.sqlite"))
        var newer = job("mail", kind: "send")
        newer.version = 3
        let waiting = try await store.add(newer)
        let parked = try await store.add(job("mail", kind: "send"))
        let claimed = try #require(try await store.claim(queue: "mail", limit: 1, owner: "w1", leaseDuration: 30_000, now: 1_500).first)
        #expect(claimed.id == parked)
        let failure = JobFailure(type: "InputDecodingError", message: "the stored input (version 1) does not decode", retryable: false)
        _ = try await store.finish([FinishedAttempt(claimed.attemptID, owner: "w1", outcome: .parked(failure))], now: 1_600)
        let here = directory.url.path

        let status = try await durableq(["status"], in: here)
        let lines = status.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(status.stdout.contains("PARKED"))
        // QUEUE MODE LIMIT PAUSED SCHEDULED PENDING BLOCKED RUNNING HANDED-OFF WAITING, then the parked count.
        #expect(lines.last.map { Array($0.prefix(11)) } == ["mail", "fifo", "-", "no", "0", "1", "0", "0", "0", "0", "1"], "\(status.stdout)")
        let byKind = try await durableq(["status", "--by-kind"], in: here)
        #expect(
            byKind.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") } == [
                "KIND VERSION QUEUE WAITING WORKERS PAUSED", "send 3 mail 1 0 0",
                "1 job(s) of 'send v3' on queue 'mail' wait for a worker that runs version 3: no running worker runs 'send' there",
            ], "\(byKind.stdout)")
        // A worker on another host that runs versions 1–2, then one that runs 3 on other queues only.
        let now = Date().millisecondsSince1970
        try await store.recordWorker("old-host-1-0123abcd", runs: RunnableKinds(versions: ["send": 1...2]), queues: nil, startedAt: now, now: now)
        #expect(
            try await durableq(["status", "--by-kind"], in: here).stdout.hasSuffix(
                "1 job(s) of 'send v3' on queue 'mail' wait for a worker that runs version 3: running workers run 'send' there at versions 1–2\n"))
        try await store.recordWorker("bulk-host-1-0123abcd", runs: RunnableKinds(versions: ["send": 3...3]), queues: ["bulk"], startedAt: now, now: now)
        let limited = try await durableq(["status", "--by-kind"], in: here)
        #expect(limited.stdout.split(separator: "\n")[1].split(separator: " ", omittingEmptySubsequences: true) == ["send", "3", "mail", "1", "0", "0"],
                "a worker of queue 'bulk' alone does not run the jobs of 'mail': \(limited.stdout)")
        // One that runs version 3 on every queue, paused, then running.
        try await store.recordWorker("new-host-1-0123abcd", runs: RunnableKinds(versions: ["send": 3...3]), queues: nil, startedAt: now, now: now)
        try await store.recordWorkerPaused("new-host-1-0123abcd", now: now)
        let paused = try await durableq(["status", "--by-kind"], in: here)
        #expect(paused.stdout.split(separator: "\n")[1].split(separator: " ", omittingEmptySubsequences: true) == ["send", "3", "mail", "1", "0", "1"],
                "\(paused.stdout)")
        #expect(paused.stdout.hasSuffix("wait for a worker that runs version 3: the 1 worker(s) that run it there are paused\n"), "\(paused.stdout)")
        try await store.recordWorker("new-host-1-0123abcd", runs: RunnableKinds(versions: ["send": 3...3]), queues: nil, startedAt: now, now: now)
        let covered = try await durableq(["status", "--by-kind"], in: here)
        #expect(covered.stdout.split(separator: "\n").last?.split(separator: " ", omittingEmptySubsequences: true) == ["send", "3", "mail", "1", "1", "0"],
                "\(covered.stdout)")
        let byKindJSON = try await durableq(["status", "--by-kind", "--json"], in: here).objects()
        #expect(byKindJSON.count == 1 && byKindJSON.first?["kind"] as? String == "send" && byKindJSON.first?["version"] as? Int == 3
                && byKindJSON.first?["queue"] as? String == "mail" && byKindJSON.first?["paused_workers"] as? Int == 0
                && byKindJSON.first?["waiting"] as? Int == 1 && byKindJSON.first?["workers"] as? Int == 1, "\(byKindJSON)")
        #expect((byKindJSON.first?["versions_run"] as? [[Int]]) == [[1, 2], [3, 3]], "\(byKindJSON)")
        let list = try await durableq(["list", "--state", "parked", "--kind", "send"], in: here)
        #expect(list.stdout.contains("\(parked)") && !list.stdout.contains("send v3"), "\(list.stdout)")
        #expect(try await durableq(["list", "--kind", "send"], in: here).stdout.contains("send v3"))
        let show = try await durableq(["show", "\(waiting)"], in: here)
        #expect(show.stdout.contains("send v3"), "\(show.stdout)")
        #expect(try await durableq(["show", "\(waiting)", "--json"], in: here).stdout.contains("\"version\":3"))

        let retried = try await durableq(["retry", "\(parked)"], in: here)
        #expect(retried.status == 0, "\(retried)")
        #expect(try await store.job(parked).state == .pending)
    }
}
