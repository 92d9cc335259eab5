import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// Limits per partition key with real worker processes, on the wall clock, judged from the jobs'
/// history (`job_events`): every start and every end as the store recorded it.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(2))) struct KeyLimitsProcessTests {
    /// Each attempt of jobs `keys` (job → key) as the history shows it: its key, when it started
    /// running and when it stopped (nil: still running), and whether its handler started: a claim
    /// whose lease ran out before its worker could start the handler (a starved process, on a loaded
    /// machine) is given back uncounted, and its job claimed again.
    private func attempts(_ store: any JobStore, keys: [Int64: String]) async throws -> [Span] {
        var spans: [Span] = []
        for (job, key) in keys {
            let history = try await store.history(of: JobID(job))
            for (index, event) in history.enumerated() where event.to == .running && event.from != .running {
                let ending = history[(index + 1)...].first { $0.from == .running }
                spans.append(
                    Span(key: key, start: event.at, end: ending?.at, handlerStarted: ending?.reason != "the lease expired before the attempt started"))
            }
        }
        return spans.sorted { $0.start < $1.start }
    }

    /// A job's time in `running`, from its claim to its ending.
    private struct Span: CustomStringConvertible {
        var key: String
        var start: Int64
        var end: Int64?
        var handlerStarted: Bool
        var description: String { "\(key) \(start)–\(end.map(String.init) ?? "…")\(handlerStarted ? "" : " (given back before its start)")" }
    }

    /// The most attempts of one key running at once over `spans` of that key.
    private func mostAtOnce(_ spans: [Span]) -> Int {
        spans.map { span in
            spans.filter { $0.start <= span.start && ($0.end ?? .max) > span.start }.count
        }.max() ?? 0
    }

    @Test(arguments: StoreBackend.all) func threeWorkerProcessesKeepEachKeysLimitThrottleAndRate(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let now = Date().millisecondsSince1970
        // Every key: one at a time, 300 ms between starts; "vip:" keys: two at once, three starts a second.
        // Paused until the three workers are ready: one started early on a loaded machine did all.
        let configuration = QueueConfiguration(
            "sync", isPaused: true, partitionLimit: 1, keyThrottle: Throttle(.milliseconds(300)),
            keyOverrides: ["vip:*": KeyLimits(concurrencyLimit: 2, rateLimit: RateLimit(3, per: .seconds(1)))])
        try await store.configure(configuration, now: now)
        let keyNames = ["a", "b", "vip:c"]
        let jobs = (0..<30).map { index in
            var new = NewJob(queue: "sync", kind: "record", input: "{\"index\":\(index)}")
            new.partitionKey = keyNames[index % keyNames.count]
            return new
        }
        let ids = try await store.enqueue(jobs, now: now).map(\.id.rawValue)
        let keys = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, keyNames[$0 % keyNames.count]) })

        // One job at a time per worker: the keys allow four at once (a, b and two of vip:c), which one
        // worker of four slots could run alone on a loaded machine (seen: "across 1 processes").
        let workers = try (0..<3).map { _ in
            try WorkerProcess(
                ["work", path, directory.path("work.log"), "--until-done", "--job-ms", "200", "--max-jobs", "1"],
                errorLog: directory.path("workers.log"))
        }
        for worker in workers { #expect(await worker.waitForLine("ready")) }
        try await store.setSuspended(false, queue: "sync", now: Date().millisecondsSince1970)
        for worker in workers { #expect(await worker.waitForExit() == 0) }

        let spans = try await attempts(try await backend.make(directory), keys: keys)
        let ran = spans.filter(\.handlerStarted)
        #expect(ran.count == 30 && spans.allSatisfy { $0.end != nil }, "every job ran once: \(ran.count) attempts")
        if ran.count != 30 || ["a", "b"].contains(where: { key in mostAtOnce(ran.filter { $0.key == key }) > 1 }) {
            // What the history and the workers say of each job that ran more than once, or beside another of its key.
            var lines: [String] = []
            for (job, key) in keys.sorted(by: { $0.key < $1.key }) {
                let history = try await store.history(of: JobID(job))
                lines.append("job \(job) (\(key)): " + history.map { "\($0.at) \($0.from.map(\.rawValue) ?? "-")→\($0.to.rawValue) a\($0.attempt) \($0.worker ?? "") \($0.reason ?? "")" }.joined(separator: " | "))
            }
            let workerLog = (try? String(contentsOfFile: directory.path("workers.log"), encoding: .utf8)) ?? ""
            let notable = workerLog.split(separator: "\n").filter { !$0.contains("debug") }.suffix(80)
            Issue.record("histories:\n\(lines.joined(separator: "\n"))\nworkers (not debug):\n\(notable.joined(separator: "\n"))")
        }
        // At once: every claim, a claim given back before its handler started included, judged from
        // the history alone. Each write is stamped once it holds the lock, so a give-back is
        // stamped before the key's next claim, which the store admitted after it.
        for key in ["a", "b"] {
            let own = spans.filter { $0.key == key }
            #expect(mostAtOnce(own) == 1, "\(key): \(own)")
            #expect(gaps(own.map(\.start)).allSatisfy { $0 >= 300 }, "\(key) starts: \(own.map(\.start))")
        }
        let vip = spans.filter { $0.key == "vip:c" }
        #expect(mostAtOnce(vip) <= 2, "vip:c: \(vip)")
        let vipStarts = vip.map(\.start)
        // At most three starts in any second: each start is a second or more after the third before it.
        let crowded = zip(vipStarts.dropFirst(3), vipStarts).filter { $0 - $1 < 1_000 }
        #expect(crowded.isEmpty, "vip:c starts \(vipStarts)")
        let processes = Set(try WorkLog(path: directory.path("work.log")).starts.map(\.pid)).count
        #expect(processes >= 2, "the work spread over the processes")
        print("keys across \(processes) processes: a gaps \(gaps(spans.filter { $0.key == "a" }.map(\.start))) ms, vip:c starts \(vipStarts.map { $0 - vipStarts[0] })")
    }

    @Test(arguments: StoreBackend.all) func aWorkerKilledRightAfterAStartLeavesTheRestOfItsKeysIntervalToTheNext(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let now = Date().millisecondsSince1970
        try await store.configure(QueueConfiguration("sync", keyThrottle: Throttle(.seconds(3))), now: now)
        let jobs = (0..<3).map { index in
            var new = NewJob(queue: "sync", kind: "record", input: "{\"index\":\(index)}")
            new.partitionKey = "k"
            return new
        }
        let ids = try await store.enqueue(jobs, now: now).map(\.id.rawValue)
        // Attempts of up to 400 ms: the kill usually lands while the first runs.
        let arguments = ["work", path, directory.path("work.log"), "--announce-starts", "--lease-ms", "800", "--job-ms", "400"]

        let first = try WorkerProcess(arguments)
        #expect(await first.nextLine { $0.hasPrefix("started ") } != nil)
        first.kill()
        #expect(await first.waitForExit() == SIGKILL)

        // The restarted worker recovers the killed attempt and runs every job, never two starts of
        // the key closer than its interval.
        let second = try WorkerProcess(arguments + ["--until-done"])
        #expect(await second.waitForExit() == 0)
        let spans = try await attempts(try await backend.make(directory), keys: Dictionary(uniqueKeysWithValues: ids.map { ($0, "k") }))
        // Every claim is a start of the key (a claim given back before its handler started too).
        let starts = spans.map(\.start)
        // Three jobs, each succeeded; the killed one ran twice unless its attempt ended before the kill
        // landed, and on a loaded machine a starved worker's lease (800 ms) may run out and its job
        // run again: more attempts, never two starts of the key closer than its interval.
        #expect(spans.filter(\.handlerStarted).count >= 3, "\(spans)")
        var states: [JobState] = []
        for id in ids { states.append(try await store.job(JobID(id)).state) }
        #expect(states == [.succeeded, .succeeded, .succeeded], "\(states)")
        #expect(gaps(starts).allSatisfy { $0 >= 3_000 }, "starts \(starts)")
        print("key throttle kill test: \(starts.count) starts, gaps \(gaps(starts)) ms")
    }

    /// Fairness is the order in which the store hands out turns: judged from the claims in the history,
    /// not from the handlers' starts, which a starved or frozen worker delays (seen on a slow machine,
    /// and with a worker stopped past its lease: a small key's job claimed seventh had not started
    /// among the first 16).
    @Test(arguments: StoreBackend.all) func twoWorkerProcessesClaimTenSmallKeysAmongTheFirstTwelveAfterABigOne(_ backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await backend.location(directory)
        let store = try await backend.make(directory)
        let now = Date().millisecondsSince1970
        try await store.configure(QueueConfiguration("sync", fairness: .byKey), now: now)
        func keyed(_ key: String, _ index: Int) -> NewJob {
            var new = NewJob(queue: "sync", kind: "record", input: "{\"index\":\(index)}")
            new.partitionKey = key
            return new
        }
        var big: [Int64] = []
        for batch in 0..<10 {
            big += try await store.enqueue((0..<1_000).map { keyed("big", batch * 1_000 + $0) }, now: now).map(\.id.rawValue)
        }
        let small = Set(try await store.enqueue((0..<10).map { keyed("small-\($0)", 10_000 + $0) }, now: now).map(\.id.rawValue))

        let workers = try (0..<2).map { _ in
            try WorkerProcess(["work", path, directory.path("work.log"), "--announce-starts", "--job-ms", "2", "--max-jobs", "1"])
        }
        var started = 0
        while started < 30, await workers[started % 2].nextLine(matching: { $0.hasPrefix("started ") }) != nil { started += 1 }
        for worker in workers { worker.kill() }
        for worker in workers { _ = await worker.waitForExit() }

        // Each job's first claim (the history's first move to running), in the order of their times.
        // The first claims of the big key's 40 first jobs and the small ones are enough: with at most
        // 30 starts, nothing later can be among the first 12.
        var claims: [(job: Int64, at: Int64, worker: String)] = []
        for id in big.prefix(40) + small.sorted() {
            if let claim = try await store.history(of: JobID(id)).first(where: { $0.to == .running }) {
                claims.append((id, claim.at, claim.worker ?? "?"))
            }
        }
        claims.sort { ($0.at, $0.job) < ($1.at, $1.job) }
        // The tags make the order the big key's first job and the ten small ones (in any order: their
        // tags are equal), then the big key's next. A claim's time is read once its transaction has
        // begun; two overlapping claims may be stamped in either order: one late stamp leaves room
        // for the big key's second job among the first 12, not for two.
        let first = claims.prefix(12).map(\.job)
        let starts = try WorkLog(path: directory.path("work.log")).starts.prefix(16)
        #expect(
            small.isSubset(of: Set(first)),
            """
            the first claims: \(first), small keys' jobs \(small.sorted()); claims (job at worker): \
            \(claims.prefix(16).map { "\($0.job) \($0.at) \($0.worker)" }); starts (job at pid): \(starts.map { "\($0.job) \($0.at) \($0.pid)" })
            """)
        print("fair queue across two processes: the ten small keys claimed among the first \(first.count) of \(started)+ starts")
    }
}
