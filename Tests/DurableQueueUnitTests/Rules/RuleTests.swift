import DurableQueueTestSupport
import Testing

@testable import DurableQueueCore

/// The rules both stores apply, as pure functions over row values: no database. The stores'
/// tests (and `ConformanceTests`, on every backend) show that each store writes what they decide.
@Suite struct RuleTests {
    private func child(_ position: Int, _ state: JobState, name: String? = nil) -> GroupChild {
        GroupChild(position: position, job: JobID(Int64(position + 1)), group: nil, name: name, state: state, output: nil)
    }

    @Test func aSequenceStartsItsNextStepOnlyWhenNothingRunsAndEndsWhenNoStepIsLeft() {
        #expect(GroupAdvance.blockedToRead(kind: .sequence, maxConcurrent: 0, active: 1) == 1)
        #expect(GroupAdvance.next(kind: .sequence, active: 0, blocked: [child(2, .blocked)]) == .start([child(2, .blocked)], previousOutputAt: 1))
        #expect(GroupAdvance.next(kind: .sequence, active: 0, blocked: [child(0, .blocked)]) == .start([child(0, .blocked)], previousOutputAt: nil))
        #expect(GroupAdvance.next(kind: .sequence, active: 1, blocked: [child(2, .blocked)]) == .wait)
        #expect(GroupAdvance.next(kind: .sequence, active: 1, blocked: []) == .wait)
        #expect(GroupAdvance.next(kind: .sequence, active: 0, blocked: []) == .end)
        #expect(GroupAdvance.outcome(kind: .sequence, children: [child(0, .succeeded)]) == (.succeeded, "every step succeeded"))
        #expect(GroupAdvance.sequenceEnd(stoppedBy: child(1, .failed)) == (.failed, "step 2 failed"))
        #expect(GroupAdvance.sequenceEnd(stoppedBy: child(1, .cancelled, name: "pay")) == (.cancelled, "step 'pay' cancelled"))
    }

    @Test func aConcurrentGroupStartsWhatItsLimitLeavesRoomForAndEndsByItsChildren() {
        #expect(GroupAdvance.blockedToRead(kind: .concurrent, maxConcurrent: 4, active: 1) == 3)
        #expect(GroupAdvance.blockedToRead(kind: .concurrent, maxConcurrent: 2, active: 3) == 0)
        #expect(GroupAdvance.blockedToRead(kind: .concurrent, maxConcurrent: 0, active: 9) == nil)
        let blocked = [child(3, .blocked), child(4, .blocked)]
        #expect(GroupAdvance.next(kind: .concurrent, active: 2, blocked: blocked) == .start(blocked, previousOutputAt: nil))
        #expect(GroupAdvance.next(kind: .concurrent, active: 2, blocked: []) == .wait)
        #expect(GroupAdvance.next(kind: .concurrent, active: 0, blocked: []) == .end)
        #expect(GroupAdvance.outcome(kind: .concurrent, children: [child(0, .succeeded), child(1, .succeeded)]) == (.succeeded, "every child succeeded"))
        #expect(
            GroupAdvance.outcome(kind: .concurrent, children: [child(0, .cancelled), child(1, .failed), child(2, .succeeded)])
                == (.failed, "2 of 3 children did not succeed"))
        #expect(GroupAdvance.outcome(kind: .concurrent, children: [child(0, .cancelled), child(1, .succeeded)]).state == .cancelled)
        #expect(GroupAdvance.finalState(.failed, cancelRequested: true) == .cancelled)
        #expect(GroupAdvance.endsAtOnceWhenCancelled(.blocked) && !GroupAdvance.endsAtOnceWhenCancelled(.running))
        #expect(GroupAdvance.finalState(.succeeded, cancelRequested: true) == .succeeded)
    }

    @Test func anExpiredLeaseCountsItsAttemptAndACancelWins() {
        let lease = ExpiredLease(id: JobID(7), owner: "w1", attempts: 3, countedAttempts: 2, maxAttempts: 3, cancelRequested: false)
        let again = lease.verdict(deadOwners: [], lostAttemptLimit: 3)
        #expect(again.state == .pending && again.reason == "worker 'w1' stopped during attempt 3 (lease expired)" && again.failure.retryable)
        var last = lease
        last.countedAttempts = 3
        #expect(last.verdict(deadOwners: ["w1"], lostAttemptLimit: 3).reason == "worker 'w1' stopped during attempt 3 (its process is gone); no attempts left")
        #expect(last.verdict(deadOwners: [], lostAttemptLimit: 3).state == .failed && !last.verdict(deadOwners: [], lostAttemptLimit: 3).failure.retryable)
        last.cancelRequested = true
        #expect(last.verdict(deadOwners: [], lostAttemptLimit: 3).state == .cancelled)
    }

    @Test func aJobWhoseWorkerStopsDuringAttemptsInARowWithoutProgressIsPoison() {
        // Attempt 5 lost after attempts 3 and 4 were: the third in a row.
        var lease = ExpiredLease(
            id: JobID(7), owner: "w1", attempts: 5, countedAttempts: 5, maxAttempts: nil, cancelRequested: false,
            lost: LostAttempts(inARow: 2, lastLost: 4))
        let poison = lease.verdict(deadOwners: [], lostAttemptLimit: 3)
        #expect(poison.state == .failed && poison.isPoison && poison.lost == LostAttempts(inARow: 3, lastLost: 5))
        #expect(poison.failure.type == LostAttempts.poisonFailureType && !poison.failure.retryable)
        #expect(poison.reason.hasPrefix("worker 'w1' stopped during attempt 5 (lease expired); its worker stopped during 3 attempts in a row"))
        // No limit, a higher one: the job runs again, the count kept.
        #expect(lease.verdict(deadOwners: [], lostAttemptLimit: nil).state == .pending)
        #expect(lease.verdict(deadOwners: [], lostAttemptLimit: 4).lost == LostAttempts(inARow: 3, lastLost: 5))
        // Attempt 4 ended otherwise (the last lost was 3): the count starts again.
        lease.lost = LostAttempts(inARow: 2, lastLost: 3)
        #expect(lease.verdict(deadOwners: [], lostAttemptLimit: 3).lost == LostAttempts(inARow: 1, lastLost: 5))
        // An attempt that made progress is not counted.
        lease.lost = LostAttempts(inARow: 2, lastLost: 4)
        lease.madeProgress = true
        let progressed = lease.verdict(deadOwners: [], lostAttemptLimit: 3)
        #expect(progressed.state == .pending && progressed.lost == LostAttempts(inARow: 0, lastLost: 5))
        // A cancel still wins; a hand-off past its deadline is no lost attempt.
        lease.madeProgress = false
        lease.cancelRequested = true
        #expect(lease.verdict(deadOwners: [], lostAttemptLimit: 3).state == .cancelled)
        lease.cancelRequested = false
        lease.handOff = HandOffTarget(carrier: "c", reference: "r", deadline: 1)
        let handOff = lease.verdict(deadOwners: [], lostAttemptLimit: 3)
        #expect(handOff.state == .pending && !handOff.isPoison && handOff.lost == LostAttempts())
    }

    @Test func aCancelEndsAWaitingJobFlagsARunningOneOnceAndLeavesAFinishedOne() {
        #expect(CancelRequest.decide(state: .pending, cancelRequested: false) == (.cancelled, .cancel))
        #expect(CancelRequest.decide(state: .blocked, cancelRequested: false) == (.cancelled, .cancel))
        #expect(CancelRequest.decide(state: .running, cancelRequested: false) == (.requested, .flag))
        #expect(CancelRequest.decide(state: .running, cancelRequested: true) == (.requested, CancelRequest.Change.none))
        #expect(CancelRequest.decide(state: .succeeded, cancelRequested: false) == (.alreadyFinished(.succeeded), CancelRequest.Change.none))
    }

    @Test func onlyAFailedOrCancelledJobOutsideGroupsWhoseKeyIsFreeIsRetriedByHand() throws {
        let id = JobID(3)
        try ManualRetry.check(id, state: .failed, group: nil, uniqueKey: "k", uniqueKeyHolder: nil)
        for (state, group, holder) in [(JobState.running, nil, nil), (.cancelled, GroupID(1), nil), (.failed, nil, JobID(9))] as [(JobState, GroupID?, JobID?)] {
            let error = #expect(throws: DurableQueueError.self) {
                try ManualRetry.check(id, state: state, group: group, uniqueKey: "k", uniqueKeyHolder: holder)
            }
            #expect(error?.code == .invalidArgument)
        }
        #expect(ManualRetry.reason(afterAttempts: 4) == "retry requested after 4 attempt(s)")
    }

    @Test func aDebounceChangesOnlyAWaitingJob() {
        #expect(UniqueKeyRule.action(for: .allow) == .keep && UniqueKeyRule.action(for: .replace) == .replace)
        let later = UniqueKeyRule.debounce(state: .pending, runAt: 5_000, now: 1_000)
        #expect(later?.state == .scheduled && later?.runAt == 5_000)
        #expect(UniqueKeyRule.debounce(state: .scheduled, runAt: nil, now: 1_000)?.state == .pending)
        #expect(UniqueKeyRule.debounce(state: .running, runAt: nil, now: 1_000) == nil)
        #expect(UniqueKeyRule.debounce(state: .blocked, runAt: nil, now: 1_000) == nil)
    }

    @Test func aQueueStartsWithinItsLimitsAndMovesItsNextStartPastThrottleAndRateWindow() {
        var queue = QueueStartSettings(
            name: "q", concurrencyLimit: 3, suspended: false, measuredFromEnd: false, rateCount: 5, rateWindow: 10_000, nextStart: 0,
            throttleInterval: 0, partitionLimit: 0)
        #expect(queue.mayStart(at: 1_000))
        #expect(queue.slots(wanted: 10, running: 1, recentStarts: 0) == 2)
        #expect(queue.slots(wanted: 10, running: 0, recentStarts: 4) == 1)
        #expect(queue.slots(wanted: 10, running: 5, recentStarts: 0) == 0)
        #expect(queue.nextStart(afterStartsAt: 1_000, intervals: [0, 200], countedStart: nil) == 1_200)
        #expect(queue.nextStart(afterStartsAt: 1_000, intervals: [0], countedStart: 900) == 10_900)
        #expect(queue.nextStart(afterStartsAt: 1_000, intervals: [0], countedStart: nil) == nil)
        queue.measuredFromEnd = true
        #expect(queue.runningLimit == 1 && queue.slots(wanted: 10, running: 1, recentStarts: 0) == 0)
        #expect(queue.nextStart(afterStartsAt: 1_000, intervals: [500], countedStart: nil) == nil)
        queue.suspended = true
        #expect(!queue.mayStart(at: 1_000))
    }

    @Test func aCacheLookupAnswersFromItsEntryOrAsksForAJob() throws {
        let complete = CacheEntryRecord(state: .complete, job: JobID(1), output: "42", error: nil, failures: 0)
        #expect(CacheRule.answer(for: complete, computing: false, maxFailures: 3) == .complete(output: "42"))
        let running = CacheEntryRecord(state: .inProgress, job: JobID(2), output: nil, error: nil, failures: 1)
        #expect(CacheRule.jobToCheck(in: running) == JobID(2) && CacheRule.jobToCheck(in: complete) == nil)
        #expect(CacheRule.answer(for: running, computing: true, maxFailures: 3) == .computing(JobID(2), enqueued: false))
        #expect(CacheRule.answer(for: running, computing: false, maxFailures: 3) == nil)  // its job ended unrecorded: compute again
        let failed = CacheEntryRecord(state: .failed, job: JobID(3), output: nil, error: nil, failures: 2)
        #expect(CacheRule.answer(for: failed, computing: false, maxFailures: 3) == nil)
        #expect(CacheRule.answer(for: failed, computing: false, maxFailures: 2) == .failed(nil, failures: 2))
        #expect(CacheRule.answer(for: failed, computing: false, maxFailures: nil) == nil)
        #expect(CacheRule.answer(for: nil, computing: false, maxFailures: 1) == nil)
        #expect(throws: DurableQueueError.self) { try CacheRule.validate(job: job(uniqueKey: "k"), maxFailures: 1) }
        #expect(throws: DurableQueueError.self) { try CacheRule.validate(job: job(), maxFailures: 0) }
    }

    @Test func aCacheEntryRecordsHowItsJobEnded() throws {
        let done = try CacheRule.outcome(jobState: .succeeded, output: "42", error: nil)
        #expect(done.state == .complete && done.output == "42" && done.error == nil && !done.countsFailure)
        let failed = try CacheRule.outcome(jobState: .failed, output: nil, error: "{\"type\":\"Boom\",\"message\":\"boom\",\"retryable\":true}")
        #expect(failed.state == .failed && failed.error?.contains("Boom") == true && failed.countsFailure)
        let cancelled = try CacheRule.outcome(jobState: .cancelled, output: nil, error: nil)
        #expect(cancelled.error == "{\"type\":\"Cancelled\",\"message\":\"the job was cancelled\",\"retryable\":false}")
        #expect(cancelled.state == .failed && cancelled.countsFailure)
    }

    @Test func anAgingQueueRaisesJobsThatWaitedItsIntervalAndSaysByHowMuch() {
        let rule = AgingRule(queue: "q", interval: 1500, limit: 4)
        #expect(rule.waitedSince(now: 10_000) == 8_500)
        #expect(rule.reason(risenTo: 3) == "aged: priority 2 → 3 after waiting 1500ms")
        #expect(AgingRule(queue: "q", interval: 60_000, limit: 0).reason(risenTo: 0) == "aged: priority -1 → 0 after waiting 60s")
    }

    @Test func aJobGivenBackRunsAgainUnlessItsCancelWasRequested() {
        #expect(GiveBack.state(cancelRequested: false) == .pending)
        #expect(GiveBack.state(cancelRequested: true) == .cancelled)
    }

    @Test func reconcilingACarrierGivesBackOnlyLostHandOffsAndStopsOnlyTransfersOfEndedOnes() {
        func job(_ id: Int64, _ reference: String) -> HandedOffJob {
            HandedOffJob(attempt: AttemptID(job: JobID(id), number: 1), reference: reference)
        }
        let (lost, known, starting, ended) = (job(1, "a"), job(2, "b"), job(3, "c"), job(4, "d"))
        // "c" is being started here (the carrier does not know it yet); "d" ended between the two reads;
        // "e" was handed off after the first read and started before the carrier was asked.
        let plan = HandOffRule.reconcile(
            handedOff: [lost, known, starting, ended], stillHandedOff: [lost, known, starting, job(5, "e")],
            carried: ["b", "d", "e", "orphan"], starting: [starting.attempt])
        #expect(plan.giveBack == [lost])
        #expect(plan.stop == ["d", "orphan"])
        #expect(HandOffRule.isCurrent(AttemptID(job: JobID(1), number: 2), state: .handedOff, attempts: 2))
        #expect(!HandOffRule.isCurrent(AttemptID(job: JobID(1), number: 1), state: .handedOff, attempts: 2))
        #expect(!HandOffRule.isCurrent(AttemptID(job: JobID(1), number: 2), state: .pending, attempts: 2))
        #expect(HandOffRule.state(cancelRequested: true) == .cancelled && HandOffRule.state(cancelRequested: false) == .handedOff)
    }
}
