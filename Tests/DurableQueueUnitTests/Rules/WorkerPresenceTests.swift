import Testing

@testable import DurableQueueCore

/// Which workers count as running, and which waiting jobs none of them runs (``WorkerPresence``).
@Suite struct WorkerPresenceTests {
    private static let now: Int64 = 10_000_000

    private func row(_ worker: String, _ kind: String, _ versions: ClosedRange<Int>, seen: Int64 = WorkerPresenceTests.now) -> WorkerKindRecord {
        WorkerKindRecord(workerID: worker, kind: kind, versions: versions, startedAt: 0, seenAt: seen)
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

    @Test func eachWaitingVersionCountsTheWorkersThatRunIt() {
        let live = [
            row("a", "greet", 1...2), row("a", "mail", 1...1),
            row("b", "greet", 1...2),
            row("c", "greet", 3...3),
        ]
        let waiting = [
            KindVersion(kind: "greet", version: 2): 5, KindVersion(kind: "greet", version: 4): 3,
            KindVersion(kind: "mail", version: 2): 1, KindVersion(kind: "resize", version: 1): 7,
        ]
        let coverage = WorkerPresence.coverage(of: waiting, by: live)
        #expect(coverage.map(\.job) == waiting.keys.sorted(), "in kind and version order")
        #expect(coverage.map(\.workers) == [2, 0, 0, 0])
        #expect(coverage.map(\.waiting) == [5, 3, 1, 7])
        #expect(coverage[1].versionsRun == [1...2, 3...3], "each range once, lowest first")
        #expect(coverage[3].versionsRun.isEmpty)
    }

    @Test func jobsThatNoRunningWorkerRunsSayWhy() {
        let live = [row("a", "greet", 1...2), row("b", "greet", 3...3), row("c", "mail", 1...1)]
        let waiting = [
            KindVersion(kind: "greet", version: 1): 2, KindVersion(kind: "greet", version: 4): 3,
            KindVersion(kind: "mail", version: 2): 1, KindVersion(kind: "resize", version: 1): 7,
        ]
        let notes = WorkerPresence.coverage(of: waiting, by: live).map(\.unrunNote)
        #expect(
            notes == [
                nil,
                "3 job(s) of 'greet v4' wait for a worker that runs version 4: running workers run 'greet' at versions 1–2, version 3",
                "1 job(s) of 'mail v2' wait for a worker that runs version 2: running workers run 'mail' at version 1",
                "7 job(s) of 'resize v1' wait for a worker that runs version 1: no running worker runs 'resize'",
            ])
    }
}
