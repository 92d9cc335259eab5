import Foundation
import Logging
import Tracing

/// How an attempt's handler ended.
private enum AttemptEnding: Sendable {
    case returned(String)
    case threw(any Error)
}

/// The attempt was stopped because the lease passed to another process: there is nothing to record.
struct LeaseLostError: Error, CustomStringConvertible {
    var description: String { "this worker no longer holds the job's lease" }
}

/// The lease expired before the handler's first instruction: it did not start.
private struct LeaseExpiredBeforeStartError: Error {}

/// An attempt ran past its job's timeout.
struct JobTimeoutError: Error, CustomStringConvertible {
    let milliseconds: Int64
    var description: String { "the attempt ran past its timeout of \(milliseconds) ms" }
}

extension JobEngine {
    /// Runs one claimed attempt to its end and records the outcome (or gives the job back).
    func process(_ job: ClaimedJob, stop: StopSignal) async {
        var logger = logger
        // Four metadata values cost a seventieth of a drained job's instructions: not for a logger
        // that drops everything.
        if !logsNothing {
            logger[metadataKey: "job.id"] = "\(job.id)"
            logger[metadataKey: "job.kind"] = "\(job.kind)"
            logger[metadataKey: "job.attempt"] = "\(job.attempt)"
            logger[metadataKey: "queue.name"] = "\(job.queue)"
        }
        guard let runner = registry.runner(for: job.kind) else { return }  // claims only take registered kinds
        // The process may have been frozen (SIGSTOP, an app suspension) since the claim, and another
        // process may have taken the job back since the lease expired: the handler must not start.
        if now >= state.leaseExpiry(of: job.attemptID) ?? job.leaseExpiresAt {
            await giveBack(job, reason: "the lease expired before the attempt started", logger: logger)
            return
        }
        // Stopped before it started (shutdown or a pause began after its claim): the handler never runs.
        if let reason = stop.reason, let givenBack = Self.givenBackReason(reason, abandoned: false) {
            await giveBack(job, reason: givenBack, logger: logger)
            return
        }
        let started = now
        logger.debug("job started")
        let span = activeTracer.map { startSpan(for: job, tracer: $0) }
        let session = AttemptSession(engine: self, job: job, runner: runner, stop: stop)
        let ending: AttemptEnding
        if let span {
            // The handler runs in the span's context: jobs it enqueues continue the trace.
            ending = await ServiceContext.withValue(span.context) {
                await execute(job, runner: runner, session: session, stop: stop, logger: logger)
            }
        } else {
            ending = await execute(job, runner: runner, session: session, stop: stop, logger: logger)
        }
        if case .threw(is LeaseExpiredBeforeStartError) = ending {
            if let span { endSpan(span, outcome: "given back", failure: nil) }
            await giveBack(job, reason: "the lease expired before the attempt started", logger: logger)
            return
        }
        if case .threw(let ended as AttemptEndedInStore) = ending {
            // A hand-off or a wait recorded the attempt's end (or a hand-off's failed start) already.
            state.noteEnded()
            metrics.finished(job, as: ended.state, ranMilliseconds: now - started)
            if let span { endSpan(span, outcome: ended.state.rawValue, failure: nil) }
            logger.debug("job attempt ended", metadata: ["job.state": "\(ended.state.rawValue)"])
            jobChanges.signal()
            return
        }
        let outcome: AttemptOutcome
        switch (stop.reason ?? (Task.isCancelled ? .shutdown : nil), ending) {
        case (_, .returned(let output)):
            // Also when stopped: the work is done, and doing it again is worse than keeping it.
            outcome = .succeeded(output: output)
        case (.shutdown, .threw(let error)), (.paused, .threw(let error)):
            if let span { endSpan(span, outcome: "given back", failure: nil) }
            let reason = Self.givenBackReason(stop.reason ?? .shutdown, abandoned: error is AbandonedHandlerError) ?? ""
            await giveBack(job, reason: reason, logger: logger)
            return
        case (.cancelRequested, .threw):
            outcome = .cancelled(reason: "cancelled while running")
        case (.timedOut, .threw):
            let error = JobTimeoutError(milliseconds: job.timeoutMilliseconds ?? 0)
            outcome = retryOrFail(job, error, retryable: runner.shouldRetry(after: error))
        case (.leaseLost, .threw(let snooze as JobSnooze)), (nil, .threw(let snooze as JobSnooze)):
            outcome = .snoozed(after: max(0, snooze.delay.milliseconds))
        case (.leaseLost, .threw(let sleep as DurableSleep)), (nil, .threw(let sleep as DurableSleep)):
            outcome = .sleeping(until: sleep.until)
        case (.leaseLost, .threw):
            // Stopped because the lease was lost: taken back elsewhere, or run out while the store
            // could not renew it. The attempt was interrupted, not failed by its handler (which most
            // likely threw the stop's CancellationError, no error to retry): nothing is recorded, and
            // recovery ends the attempt as any interrupted one, once its lease has expired in the store.
            if let span { endSpan(span, outcome: "lease lost", failure: nil) }
            logger.debug("job attempt stopped: its lease was lost; recovery will end it")
            state.noteEnded()
            jobChanges.signal()
            return
        case (nil, .threw(let error as InputDecodingError)):
            // Not the handler's failure: code that reads the input may come (a deploy, an update).
            outcome = .parked(JobFailure(error, retryable: false))
        case (nil, .threw(let error)):
            outcome = retryOrFail(job, error, retryable: runner.shouldRetry(after: error))
        }
        let ended = await record(job, outcome, note: session.unaskedStepsNote(), started: started, logger: logger)
        state.noteEnded()
        if let span { endSpan(span, outcome: ended.map(Self.spanOutcome) ?? "discarded", failure: outcome.failure) }
        jobChanges.signal()
    }

    /// The history's reason for an attempt given back after a stop for `reason`; nil for a stop
    /// that does not give the job back.
    private static func givenBackReason(_ reason: StopReason, abandoned: Bool) -> String? {
        let abandonment = "its handler did not stop within the grace period"
        switch reason {
        case .shutdown: return abandoned ? "given back: \(abandonment)" : "given back at shutdown"
        case .paused: return "given back: this process paused" + (abandoned ? "; \(abandonment)" : "")
        case .cancelRequested, .timedOut, .leaseLost: return nil
        }
    }

    /// Gives the job back to `pending` without counting the attempt, if this worker still holds it.
    private func giveBack(_ job: ClaimedJob, reason: String, logger: Logger) async {
        do {
            let released = try await store.release([job.attemptID], owner: configuration.workerID, now: now, reason: reason)
            if !released.isEmpty { state.noteGivenBack() }
            logger.debug("job given back: \(reason)\(released.isEmpty ? " (another worker had taken it already)" : "")")
        } catch {
            // The job keeps its lease until it expires; then any worker recovers it. Nothing is lost.
            logger.debug("could not give the job back; the lease will expire and the job be recovered: \(error)")
        }
        jobChanges.signal()
    }

    /// Races the handler against the job's stop signal and its timeout.
    private func execute(
        _ job: ClaimedJob, runner: any JobRunner, session: AttemptSession, stop: StopSignal, logger: Logger
    ) async -> AttemptEnding {
        let context = JobContext(
            id: job.id, attempt: job.attempt, maxAttempts: job.maxAttempts, queue: job.queue, priority: job.priority,
            checkpoint: job.checkpoint, logger: logger, session: session, jobQueue: queue)
        let deadline = job.timeoutMilliseconds.map { Date(millisecondsSince1970: now + $0) }
        let time = configuration.timeSource
        // The handler runs in its own task so that a stop (cancel, timeout, shutdown) can cancel it;
        // the attempt then waits for its outcome. It starts on this thread where it can (see
        // ``HandlerStarts``). A handler that ignores a stop for a drain's whole grace period is
        // abandoned (``StopSignal/abandon()``).
        let outcome = HandlerOutcome()
        let run: @Sendable () async -> Void = {
            // Looked at again where the handler starts: the attempt's task may have waited for a
            // thread since the look above (a busy machine), or the process been frozen. A freeze
            // between here and the handler's first line still starts it late; what it writes is
            // fenced by its attempt.
            guard self.now < self.state.leaseExpiry(of: job.attemptID) ?? job.leaseExpiresAt else {
                outcome.deliver(.failure(LeaseExpiredBeforeStartError()))
                return
            }
            do {
                outcome.deliver(.success(try await runner.run(input: job.input, version: job.version, context: context)))
            } catch {
                outcome.deliver(.failure(error))
            }
        }
        let handler = handlerStarts.start(kind: job.kind, logger: logger, run)
        stop.onStop { _ in handler.cancel() }
        stop.onAbandon { outcome.deliver(.failure(AbandonedHandlerError())) }
        let timeout = deadline.map { deadline in
            Task {
                guard (try? await time.sleep(until: deadline)) != nil else { return }
                self.state.timedOut(job.attemptID, stop: stop)
            }
        }
        defer { timeout?.cancel() }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            handler.cancel()
        }
        switch result {
        case .success(let output): return .returned(output)
        case .failure(let error): return .threw(error)
        }
    }

    /// A failed attempt's outcome, by ``RetryRule``: another attempt after the backoff if the job
    /// type retries this error, else failure.
    func retryOrFail(_ job: ClaimedJob, _ error: any Error, retryable: Bool) -> AttemptOutcome {
        RetryRule.outcome(
            after: error, retryable: retryable, attempt: job.attempt, progressedAttempts: job.progressedAttempts,
            retryPolicy: job.retryPolicy)
    }

    /// Records the attempt's outcome (committed before anyone hears of it) and reports it.
    ///
    /// A storage error is retried with a growing pause until it clears or the engine gives up on
    /// the storage (see ``Configuration/storageFailureTimeout``); then the job keeps its lease until
    /// it expires, and any worker recovers it.
    ///
    /// - Returns: The state the job is in now; nil if the store discarded the ending (the lease was
    ///   lost) or the engine gave up on the storage.
    private func record(_ job: ClaimedJob, _ outcome: AttemptOutcome, note: String?, started: Int64, logger: Logger) async -> JobState? {
        let finished = now
        let attempt = FinishedAttempt(job.attemptID, owner: configuration.workerID, outcome: outcome, note: note)
        var pause: Int64 = 100
        while true {
            do {
                let ended = try await recorder.record(attempt, alone: state.runningCount <= 1, refiller: self)
                storageSucceeded()
                guard let ended else {
                    logger.debug("the worker lost the job before the end of its attempt was recorded; the outcome was discarded")
                    return nil
                }
                metrics.finished(job, as: ended, ranMilliseconds: finished - started)
                logger.debug("job attempt ended", metadata: ["job.state": "\(ended.rawValue)"])
                return ended
            } catch {
                guard storageFailed(error, while: "record the end of job \(job.id)") else { return nil }
                try? await configuration.timeSource.sleep(until: Date(millisecondsSince1970: now + pause))
                pause = min(pause * 2, 2_000)
            }
        }
    }
}
