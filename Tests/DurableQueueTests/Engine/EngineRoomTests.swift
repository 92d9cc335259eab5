import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The engine's count of room: an attempt whose ending was committed takes none, even while its
/// task is still returning.
@Suite struct EngineRoomTests {
    private func claimed(_ job: Int64, attempt: Int = 1) -> ClaimedJob {
        ClaimedJob(
            id: JobID(job), queue: "q", kind: "test", input: "{}", priority: .normal, attempt: attempt, maxAttempts: 3,
            retryPolicy: nil, timeoutMilliseconds: nil, checkpoint: nil, runAt: 0, leaseExpiresAt: 30_000)
    }

    @Test func anAttemptWhoseEndingCommittedFreesItsRoomBeforeItsTaskReturns() {
        let state = EngineState()
        #expect(state.start())
        #expect(state.reserveRoom(maximum: 1) == 1)
        state.admit([claimed(1)], reserved: 1)
        let first = state.takeAdmitted()[0]

        // Job 1 ends: its ending's transaction claims job 2 in its place.
        #expect(state.reserveRoom(maximum: 1, freeing: 1) == 1)
        state.admit([claimed(2)], reserved: 1, ending: [first.job.attemptID])
        let second = state.takeAdmitted()[0]
        // Job 2 ends before job 1's task has returned: its refill still has room.
        #expect(state.reserveRoom(maximum: 1, freeing: 1) == 1, "the first attempt, committed, still took room")
        state.admit([], reserved: 1, ending: [second.job.attemptID])

        // A snooze took attempt 1 of job 1 back, and it runs again under the same number: the old
        // task's late removal leaves the new attempt alone.
        #expect(state.reserveRoom(maximum: 1) == 1)
        state.admit([claimed(1)], reserved: 1)
        let again = state.takeAdmitted()[0]
        state.remove(first.job.attemptID, stop: first.stop)
        #expect(state.runningAttempts == [again.job.attemptID])
        state.remove(again.job.attemptID, stop: again.stop)
        #expect(state.runningCount == 0)
    }
}

/// Runs "first" until the test lets it end; every other input until the test has seen all three
/// start, so that "second" and "third" end only after they ran at once.
private struct Rendezvous: Job {
    static let name = "rendezvous"
    let tracker: RunTracker
    let firstMayEnd: ChangeSignal
    let othersMayEnd: ChangeSignal

    func run(_ input: String, context: JobContext) async throws -> String {
        tracker.started(input)
        defer { tracker.ended(input) }
        if input == "first" {
            await firstMayEnd.wait(after: 0)
            return input
        }
        await othersMayEnd.wait(after: 0)
        return input
    }
}

extension EngineRoomTests {
    /// "second" and "third", enqueued by another queue on the file while "first" runs, run at once:
    /// not after a poll interval (10 min here) nor after one of them ends (neither ends before the
    /// other has started). Either the file's watch wakes the dispatcher, which claims them, or the
    /// ending of "first" claims both (its own room and the room left free), its task starts one
    /// and the dispatcher, woken by the machine's rule, the other (that rule alone:
    /// `EngineMachineTests.jobsClaimedBeyondTheEndingAttemptsWakeTheDispatcher`).
    @Test(.timeLimit(.minutes(1))) func jobsAnotherQueueEnqueuesWhileOneRunsStartAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tracker = RunTracker()
        let firstMayEnd = ChangeSignal()
        let othersMayEnd = ChangeSignal()
        let configuration = JobQueue.Configuration(maxConcurrentJobs: 3, pollInterval: .seconds(600))
        let worker = try await StoreBackend.sqlite.queue(in: directory, configuration: configuration)
        worker.register(Rendezvous(tracker: tracker, firstMayEnd: firstMayEnd, othersMayEnd: othersMayEnd))
        let other = try await StoreBackend.sqlite.queue(in: directory)
        let engine = Task { try await worker.run() }
        defer { engine.cancel() }

        _ = try await worker.enqueue(Rendezvous.self, "first")
        try await eventually("first started") { tracker.startedInputs == ["first"] }
        _ = try await other.enqueue(Rendezvous.self, batch: ["second", "third"])
        firstMayEnd.signal()
        try await eventually("second and third run at once", seconds: 30) { tracker.startedInputs.count == 3 }
        othersMayEnd.signal()
        #expect(tracker.peak >= 2)
    }
}
