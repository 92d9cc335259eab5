import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueue

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
