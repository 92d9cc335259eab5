import Testing

@testable import DurableQueueCore

/// The engine's state machine driven alone: events in, actions out, no store, no clock, no task.
/// Each case is an interplay a process test once found the hard way.
@Suite struct EngineMachineTests {
    private func claimed(_ job: Int64, attempt: Int = 1, leaseUntil: Int64 = 30_000) -> (job: ClaimedJob, stop: StopSignal) {
        let job = ClaimedJob(
            id: JobID(job), queue: "q", kind: "test", input: "{}", priority: .normal, attempt: attempt, maxAttempts: 3,
            retryPolicy: nil, timeoutMilliseconds: nil, checkpoint: nil, runAt: 0, leaseExpiresAt: leaseUntil)
        return (job, StopSignal())
    }

    private func attempt(_ job: Int64, _ number: Int = 1) -> AttemptID { AttemptID(job: JobID(job), number: number) }

    /// The attempts the actions stop, with their reasons, in job order.
    private func stops(_ actions: [EngineMachine.Action]) -> [String] {
        actions.compactMap { action -> String? in
            guard case .stop(let attempt, _, let reason) = action else { return nil }
            return "\(attempt.job.rawValue):\(reason)"
        }.sorted()
    }

    private func settles(_ actions: [EngineMachine.Action]) -> Bool {
        actions.contains { if case .claimsSettled = $0 { true } else { false } }
    }

    @Test func twoClaimsAtOnceNeverCountTheSameFreeRoom() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        let room1 = machine.reserveRoom(maximum: 3)
        #expect(room1 == 3)
        let room2 = machine.reserveRoom(maximum: 3)
        #expect(room2 == 0, "the first claim's reservation is not free room")
        let admitted = machine.admit([claimed(1), claimed(2)], reserved: 3)
        #expect(settles(admitted), "no claim is under way any more")
        #expect(machine.running.count == 2 && machine.reserved == 0)
        let room3 = machine.reserveRoom(maximum: 3)
        #expect(room3 == 1)
        let settled = machine.admit([], reserved: 0)
        #expect(!settles(settled), "a claim is still under way")
    }

    @Test func aFullEngineRefillsThePlacesItsEndingsFreeUnderADrainsCap() {
        var machine = EngineMachine()
        let started = machine.start(concurrency: 2, isDrain: true)
        #expect(started)
        _ = machine.admit([claimed(1), claimed(2)], reserved: 0)
        #expect(machine.room(maximum: 16) == 0)
        // The transaction that records job 1's ending claims in its place: one place, not none.
        let room = machine.reserveRoom(maximum: 16, freeing: 1)
        #expect(room == 1)
        _ = machine.admit([claimed(3)], reserved: 1, ending: [attempt(1)])
        #expect(Set(machine.running.keys) == [attempt(2), attempt(3)])
    }

    /// Jobs claimed along with endings beyond the ending attempts (whose tasks each start one as
    /// they return) wait for the dispatcher: it must be woken, or they start only at its next poll.
    /// Its own claims, and refills one for one, need no wake (a dispatcher round per job, measured).
    @Test func jobsClaimedBeyondTheEndingAttemptsWakeTheDispatcher() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        let wakes = { (actions: [EngineMachine.Action]) in actions.contains { if case .wakeDispatcher = $0 { true } else { false } } }
        let room = machine.reserveRoom(maximum: 3)
        #expect(!wakes(machine.admit([claimed(1)], reserved: room)), "the dispatcher starts what it claimed")
        _ = machine.takeAdmitted()
        let refill = machine.reserveRoom(maximum: 3, freeing: 1)
        #expect(refill == 3)
        #expect(wakes(machine.admit([claimed(2), claimed(3), claimed(4)], reserved: refill, ending: [attempt(1)])))
        _ = machine.takeAdmitted()
        let oneForOne = machine.reserveRoom(maximum: 3, freeing: 2)
        #expect(!wakes(machine.admit([claimed(5), claimed(6)], reserved: oneForOne, ending: [attempt(2), attempt(3)])))
    }

    @Test func aDrainsLimitBoundsItsClaims() {
        var machine = EngineMachine()
        let started = machine.start(claims: 2, isDrain: true)
        #expect(started)
        let room1 = machine.reserveRoom(maximum: 16)
        #expect(room1 == 2)
        _ = machine.admit([claimed(1), claimed(2)], reserved: 2)
        #expect(machine.claimsExhausted)
        let room2 = machine.reserveRoom(maximum: 16, freeing: 2)
        #expect(room2 == 0)
    }

    @Test func aPausedProcessClaimsOnlyInADrainAndAPauseEndsTheDrain() {
        var machine = EngineMachine()
        machine.pause()
        let started1 = machine.start()
        #expect(started1)
        #expect(machine.room(maximum: 4) == 0, "run() claims nothing while paused")
        _ = machine.reset()
        #expect(machine.paused, "a pause outlives the run")

        let started2 = machine.start(isDrain: true)
        #expect(started2)
        #expect(machine.room(maximum: 4) == 4, "a drain was asked for after the pause")
        machine.resume()
        machine.pause()
        #expect(machine.phase == .shuttingDown && machine.cancelled && machine.endedByPause)
        #expect(machine.room(maximum: 4) == 0)
        #expect(machine.pauseTransitions == 2)
    }

    @Test func quietOnlyWhenNothingRunsNothingIsClaimedAndEveryLoopIsParked() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        machine.loopRuns(true)
        #expect(!machine.isQuiet)
        machine.loopParked(true)
        #expect(machine.isQuiet)
        _ = machine.reserveRoom(maximum: 1)
        #expect(!machine.isQuiet, "a claim under way")
        _ = machine.admit([claimed(1)], reserved: 1)
        #expect(!machine.isQuiet, "an attempt runs")
        machine.attemptReturned(attempt(1), stop: machine.running[attempt(1)]!.stop)
        #expect(machine.isQuiet)
    }

    @Test func leasesNotRenewedStopOnlyTheAttemptsWhoseLeaseRanOutAndEachOnce() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        _ = machine.admit([claimed(1), claimed(2), claimed(3)], reserved: 0)
        let all = [attempt(1), attempt(2), attempt(3)]
        let stopped1 = machine.leasesNotRenewed(all, at: 29_999)
        #expect(stops(stopped1).isEmpty)
        let held = all.map { HeldLease(attempt: $0, cancelRequested: false, isRenewed: $0 == attempt(1)) }
        _ = machine.leasesRenewed(all, held: held, until: 60_000, handingOff: [])
        let stopped2 = machine.leasesNotRenewed(all, at: 30_000)
        #expect(stops(stopped2) == ["2:leaseLost", "3:leaseLost"])
        let stopped3 = machine.leasesNotRenewed(all, at: 30_001)
        #expect(stops(stopped3).isEmpty, "told once")
        let stopped4 = machine.leasesNotRenewed(all, at: 60_000)
        #expect(stops(stopped4) == ["1:leaseLost"])
    }

    @Test func aRenewalStopsWhatTheStoreNoLongerHoldsExceptAHandOffAndWhatWasCancelled() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        _ = machine.admit([claimed(1), claimed(2), claimed(3)], reserved: 0)
        let actions = machine.leasesRenewed(
            [attempt(1), attempt(2), attempt(3)], held: [HeldLease(attempt: attempt(1), cancelRequested: true)], until: 60_000,
            handingOff: [attempt(3)])
        #expect(stops(actions) == ["1:cancelRequested", "2:leaseLost"])
        #expect(machine.running[attempt(1)]?.leaseExpiresAt == 60_000)
        #expect(machine.running[attempt(2)]?.leaseExpiresAt == 30_000)
    }

    @Test func anAttemptKeepsItsFirstStopReasonAndStopAllReachesTheOthers() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        _ = machine.admit([claimed(1), claimed(2)], reserved: 0)
        let stopped1 = machine.stop(job: JobID(1), .cancelRequested)
        #expect(stops(stopped1) == ["1:cancelRequested"])
        machine.cancel()
        #expect(machine.phase == .shuttingDown && machine.cancelled)
        #expect(machine.room(maximum: 4) == 0)
        let stopped2 = machine.stopAll(.shutdown)
        #expect(stops(stopped2) == ["2:shutdown"])
        let stopped3 = machine.stopAll(.shutdown)
        #expect(stops(stopped3).isEmpty, "each attempt is told once")
        _ = machine.admit([claimed(3)], reserved: 0)
        let stopped4 = machine.stopAll(.shutdown)
        #expect(stops(stopped4) == ["3:shutdown"], "one admitted since is told too")
        #expect(machine.abandonAll().count == 3)
    }

    @Test func aTimeoutStopsItsAttemptEvenWhenThisEngineDoesNotCountIt() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        _ = machine.admit([claimed(1)], reserved: 0)
        let counted = machine.running[attempt(1)]!.stop
        let stopped1 = machine.timedOut(attempt(1), stop: counted)
        #expect(stops(stopped1) == ["1:timedOut"])
        let stopped2 = machine.leasesNotRenewed([attempt(1)], at: 40_000)
        #expect(stops(stopped2).isEmpty, "already stopping")
        let stopped3 = machine.timedOut(attempt(9), stop: StopSignal())
        #expect(stops(stopped3) == ["9:timedOut"])
    }

    @Test func aLateReturnOfAnOldAttemptLeavesTheNewOneUnderItsNumberAlone() {
        var machine = EngineMachine()
        let started = machine.start()
        #expect(started)
        let first = claimed(1)
        _ = machine.admit([first], reserved: 0)
        let again = claimed(1)
        _ = machine.admit([again], reserved: 0, ending: [attempt(1)])
        machine.attemptReturned(attempt(1), stop: first.stop)
        #expect(machine.running[attempt(1)]?.stop === again.stop)
    }

    @Test func theStorageFailureClockRunsFromTheFirstFailureOfAKind() {
        var machine = EngineMachine()
        let since1 = machine.storageFailed(at: 100)
        #expect(since1 == 100)
        let since2 = machine.storageFailed(at: 200)
        #expect(since2 == 100)
        let since3 = machine.storageFailed(at: 300, unavailable: true)
        #expect(since3 == 300, "protected data: another kind")
        machine.readSucceeded()
        #expect(machine.failingSince == nil, "a read shows protected data is available again")
        let since4 = machine.storageFailed(at: 400)
        #expect(since4 == 400)
        machine.readSucceeded()
        #expect(machine.failingSince == 400, "a read does not end a run of failing writes")
        machine.storageSucceeded()
        #expect(machine.failingSince == nil)
    }

    @Test func theFirstFailureStopsTheEngineAndALaterOneChangesNothing() {
        var machine = EngineMachine()
        let started1 = machine.start()
        #expect(started1)
        machine.fail(DurableQueueError(.storage, "disk full"))
        machine.fail(DurableQueueError(.storage, "later"))
        #expect(machine.phase == .shuttingDown)
        #expect(machine.failure?.message == "disk full")
        let started2 = machine.start()
        #expect(!started2, "not stopped yet")
        machine.finish()
        _ = machine.reset()
        #expect(machine.phase == .stopped && machine.failure == nil)
    }
}
