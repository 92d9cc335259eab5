import Foundation
import Logging
import Synchronization

extension JobEngine {
    /// Hands `job`'s running attempt to `request`'s carrier, then starts the transfer; always throws.
    ///
    /// The attempt is in ``startingHandOffs`` from before its commit until `start` returns, so that
    /// a reconciliation meanwhile does not take the hand-off, which its carrier does not know yet,
    /// for a lost one.
    func handOff(
        _ job: ClaimedJob, runner: any JobRunner, to request: HandOffRequest, stop: StopSignal,
        start: @Sendable () async throws -> Void
    ) async throws -> Never {
        // An abandoned handler's attempt number may run again here under the same owner.
        guard !stop.isAbandoned else { throw LeaseLostError() }
        startingHandOffs.withLock { _ = $0.insert(job.attemptID) }
        defer { startingHandOffs.withLock { _ = $0.remove(job.attemptID) } }
        guard let state = try await store.handOff(job.attemptID, owner: configuration.workerID, to: request, now: now) else {
            throw LeaseLostError()
        }
        jobChanges.signal()
        guard state == .handedOff else { throw AttemptEndedInStore(state: state) }
        do {
            try await start()
        } catch {
            // Nothing carries the attempt: it ends with the error, as a failed attempt would.
            let outcome = retryOrFail(job, error, retryable: runner.shouldRetry(after: error))
            let ended = try await store.completeHandOff(job.attemptID, outcome: outcome, reporter: configuration.workerID, now: now)
            jobChanges.signal()
            if case .recorded(let state) = ended { throw AttemptEndedInStore(state: state) }
        }
        throw AttemptEndedInStore(state: .handedOff)
    }

    /// The attempts whose hand-off is being committed or started here: their lease goes with the
    /// commit, and a heartbeat must not take that for a lost one.
    var attemptsHandingOff: Set<AttemptID> { startingHandOffs.withLock { $0 } }

    /// Reconciles every registered carrier with the store (see ``HandOffRule/reconcile(handedOff:carried:starting:)``):
    /// hand-offs whose transfer its carrier no longer knows go back to `pending` uncounted, and
    /// transfers carried for jobs no longer handed off stop. With `givingBack` false, only stops.
    @discardableResult
    func reconcileHandOffs(givingBack: Bool = true) async throws -> HandOffReconciliation {
        var result = HandOffReconciliation()
        for carrier in queue.carriers.all {
            // In this order, so that hand-offs made here meanwhile are neither given back nor stopped:
            // one committed before the first read and started before the carrier's answer is carried
            // (or still starting); one committed later is in the second read, before which its
            // transfer cannot have been carried.
            let handedOff = try await store.handOffs(carrier: carrier.name)
            let carried = await carrier.carriedReferences()
            let starting = attemptsHandingOff
            let plan = HandOffRule.reconcile(
                handedOff: handedOff, stillHandedOff: try await store.handOffs(carrier: carrier.name), carried: carried,
                starting: starting)
            if givingBack {
                for lost in plan.giveBack {
                    let reason = HandOffRule.givenBackReason(carrier: carrier.name, reference: lost.reference)
                    let givenBack = try await store.giveBackHandOffs([lost.attempt], reason: reason, now: now)
                    result.givenBack += givenBack.map(\.job)
                }
            }
            if !plan.stop.isEmpty {
                await carrier.stopCarrying(plan.stop)
                result.stopped[carrier.name] = plan.stop
            }
        }
        if !result.givenBack.isEmpty {
            logger.info("gave back \(result.givenBack.count) handed-off job(s) whose transfer was lost")
            jobChanges.signal()
            wake.signal()
        }
        return result
    }

    /// Stops the carriers' transfers of jobs no longer handed off, if any carrier is registered;
    /// a failure is logged, and the next reconciliation tries again.
    func stopOrphanedTransfers() async {
        guard !queue.carriers.isEmpty else { return }
        do {
            try await reconcileHandOffs(givingBack: false)
        } catch {
            logger.debug("could not reconcile the carriers of handed-off jobs; will try again: \(error)")
        }
    }

    /// Reconciles the carriers when a run or a drain starts; a failure is logged, not thrown: the
    /// hand-offs wait for the next reconciliation (or their deadline).
    func reconcileCarriersAtStart() async {
        guard !queue.carriers.isEmpty else { return }
        do {
            try await reconcileHandOffs()
        } catch {
            logger.info("could not reconcile the carriers of handed-off jobs: \(error)")
        }
    }
}
