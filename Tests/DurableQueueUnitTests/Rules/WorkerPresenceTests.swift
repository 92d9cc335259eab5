import Testing

@testable import DurableQueueCore

/// Which workers count as running, and which waiting jobs none of them runs (``WorkerPresence``).
@Suite struct WorkerPresenceTests {
    private static let now: Int64 = 10_000_000

    private func row(
        _ worker: String, _ kind: String, _ versions: ClosedRange<Int>, seen: Int64 = WorkerPresenceTests.now, queues: Set<String>? = nil,
        pausedAt: Int64? = nil
    ) -> WorkerKindRecord {
        WorkerKindRecord(workerID: worker, kind: kind, versions: versions, startedAt: 0, seenAt: seen, queues: queues, pausedAt: pausedAt)
    }

    private func waiting(_ kind: String, _ version: Int, on queue: String = "default") -> QueuedKindVersion {
        QueuedKindVersion(queue: queue, kind: kind, version: version)
    }

    @Test func aWorkerRunsUntilItIsStaleOrKnownGone() {
        let rows = [
            row("fresh", "greet", 1...1),
            row("last-moment", "greet", 1...1, seen: Self.now - WorkerPresence.staleAfter),
            row("stale", "greet", 1...1, seen: Self.now - WorkerPresence.staleAfter - 1),
            row("gone", "greet", 1...1),
        ]
        let live = WorkerPresence.live(rows, now: Self.now, gone: ["gone"])
        #expect(live.map(\.workerID) == ["fresh", "last-moment"])
    }

    @Test func aPausedWorkerStaysPresentHoweverLongAgoItWasSeenUnlessGone() {
        let long = Self.now - 10 * WorkerPresence.staleAfter
        let rows = [
            row("paused", "greet", 1...1, seen: long, pausedAt: long),
            row("paused-gone", "greet", 1...1, seen: long, pausedAt: long),
            row("stale", "greet", 1...1, seen: long),
        ]
        #expect(WorkerPresence.live(rows, now: Self.now, gone: ["paused-gone"]).map(\.workerID) == ["paused"])
    }

    @Test func eachWaitingVersionCountsTheWorkersThatRunIt() {
        let live = [
            row("a", "greet", 1...2), row("a", "mail", 1...1),
            row("b", "greet", 1...2),
            row("c", "greet", 3...3),
        ]
        let waiting = [waiting("greet", 2): 5, waiting("greet", 4): 3, waiting("mail", 2): 1, waiting("resize", 1): 7]
        let coverage = WorkerPresence.coverage(of: waiting, by: live)
        #expect(coverage.map(\.job) == waiting.keys.sorted().map(\.job), "in kind and version order")
        #expect(coverage.map(\.workers) == [2, 0, 0, 0])
        #expect(coverage.map(\.waiting) == [5, 3, 1, 7])
        #expect(coverage[1].versionsRun == [1...2, 3...3], "each range once, lowest first")
        #expect(coverage[3].versionsRun.isEmpty)
    }

    @Test func aWorkerLimitedToSomeQueuesRunsItsKindsOnThoseOnly() {
        let live = [row("mailer", "mail", 1...1, queues: ["mail"]), row("all", "greet", 1...1)]
        let waiting = [waiting("mail", 1, on: "mail"): 2, waiting("mail", 1, on: "bulk"): 3, waiting("greet", 1, on: "bulk"): 4]
        let coverage = WorkerPresence.coverage(of: waiting, by: live)
        #expect(coverage.map(\.queue) == ["bulk", "bulk", "mail"], "in kind, version and queue order")
        #expect(coverage.map(\.workers) == [1, 0, 1])
        #expect(coverage[1].versionsRun.isEmpty, "no worker runs 'mail' on queue 'bulk' at any version")
        #expect(coverage[1].unrunNote == "3 job(s) of 'mail v1' on queue 'bulk' wait for a worker that runs version 1: no running worker runs 'mail' there")
    }

    @Test func pausedWorkersAreCountedApartFromRunningOnes() {
        let live = [row("phone", "sync", 1...1, pausedAt: Self.now - 1), row("phone-2", "sync", 1...1, pausedAt: Self.now - 1), row("server", "mail", 1...1)]
        let coverage = WorkerPresence.coverage(of: [waiting("sync", 1): 5, waiting("mail", 1): 1], by: live)
        #expect(coverage.map(\.workers) == [1, 0])
        #expect(coverage.map(\.pausedWorkers) == [0, 2])
        #expect(coverage[1].unrunNote == "5 job(s) of 'sync v1' on queue 'default' wait for a worker that runs version 1: the 2 worker(s) that run it there are paused")
    }

    @Test func jobsThatNoRunningWorkerRunsSayWhy() {
        let live = [row("a", "greet", 1...2), row("b", "greet", 3...3), row("c", "mail", 1...1)]
        let waiting = [waiting("greet", 1): 2, waiting("greet", 4): 3, waiting("mail", 2): 1, waiting("resize", 1): 7]
        let notes = WorkerPresence.coverage(of: waiting, by: live).map(\.unrunNote)
        #expect(
            notes == [
                nil,
                "3 job(s) of 'greet v4' on queue 'default' wait for a worker that runs version 4: running workers run 'greet' there at versions 1–2, version 3",
                "1 job(s) of 'mail v2' on queue 'default' wait for a worker that runs version 2: running workers run 'mail' there at version 1",
                "7 job(s) of 'resize v1' on queue 'default' wait for a worker that runs version 1: no running worker runs 'resize' there",
            ])
    }

    @Test func aWorkersQueuesAreStoredAsAJSONArrayInOrder() {
        #expect(row("w", "k", 1...1, queues: ["b", "a"]).queuesText == #"["a","b"]"#)
        #expect(row("w", "k", 1...1).queuesText == nil)
        #expect(WorkerKindRecord.queues(fromText: #"["a","b"]"#) == ["a", "b"])
        #expect(WorkerKindRecord.queues(fromText: nil) == nil)
    }
}
