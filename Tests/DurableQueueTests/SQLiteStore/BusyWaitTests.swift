import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A connection waiting for another's write lock: it takes the lock soon after it is released, and
/// the waiting thread does not wake thousands of times meanwhile.
@Suite(.timeLimit(.minutes(1))) struct BusyWaitTests {
    @Test func aLockWaitWakesAtMostAFewHundredTimesASecondAndEndsSoonAfterTheRelease() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        _ = try SQLiteJobStore(path: path)
        let holder = try SQLiteConnection(path: path, options: StorageOptions())
        try holder.execute("BEGIN IMMEDIATE")
        let release = Task {
            try await Task.sleep(for: .seconds(1))
            try holder.execute("COMMIT")
            return ContinuousClock.now
        }
        let waited = try await onOwnThread {
            () -> Result<(wakeups: Int, began: ContinuousClock.Instant, acquired: ContinuousClock.Instant), any Error> in
            Result {
                let waiter = try SQLiteConnection(path: path, options: StorageOptions(busyTimeout: .seconds(30)))
                let before = try Self.voluntaryContextSwitchesOfThisThread()
                let began = ContinuousClock.now
                try waiter.execute("BEGIN IMMEDIATE")
                let acquired = ContinuousClock.now
                let after = try Self.voluntaryContextSwitchesOfThisThread()
                try waiter.execute("ROLLBACK")
                return (after - before, began, acquired)
            }
        }.get()
        let released = try await release.value
        // Per second waited: on a loaded machine the holder may commit late.
        let seconds = Double((waited.acquired - waited.began).components.attoseconds) / 1e18
            + Double((waited.acquired - waited.began).components.seconds)
        let perSecond = Double(waited.wakeups) / max(seconds, 0.5)
        #expect(perSecond < 200, "the waiting thread woke \(waited.wakeups) times in \(seconds) s")
        #expect(waited.acquired - released < .milliseconds(150), "took the lock \(waited.acquired - released) after its release")
    }

    @Test func thePauseStartsShortAndBacksOffTo10Milliseconds() {
        #expect((0..<10).allSatisfy { BusyWait.pause(afterTries: Int32($0)) == 100 })
        #expect(BusyWait.pause(afterTries: 10) == 200 && BusyWait.pause(afterTries: 11) == 400)
        #expect(BusyWait.pause(afterTries: 16) == 10_000 && BusyWait.pause(afterTries: 10_000) == 10_000)
    }

    /// `voluntary_ctxt_switches` of the calling thread (Linux's /proc/thread-self/status).
    private static func voluntaryContextSwitchesOfThisThread() throws -> Int {
        let status = try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            if let count = Int(line.split(separator: "\t").last ?? "") { return count }
        }
        throw CocoaError(.fileReadCorruptFile)
    }
}
