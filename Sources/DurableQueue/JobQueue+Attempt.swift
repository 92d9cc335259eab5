import Foundation
import Logging

/// How an attempt's handler ended.
private enum AttemptEnding: Sendable {
    case returned(String)
    case threw(any Error)
}

/// The attempt was stopped because the lease passed to another process: there is nothing to record.
private struct LeaseLostError: Error, CustomStringConvertible {
    var description: String { "this worker no longer holds the job's lease" }
}

/// An attempt ran past its job's timeout.
struct JobTimeoutError: Error, CustomStringConvertible {
    let milliseconds: Int64
    var description: String { "the attempt ran past its timeout of \(milliseconds) ms" }
}

extension JobQueue {
    /// Runs one claimed attempt to its end and records the outcome (or gives the job back).
    func process(_ job: ClaimedJob, stop: StopSignal) async {
        var logger = logger
        logger[metadataKey: "job.id"] = "\(job.id)"
        logger[metadataKey: "job.kind"] = "\(job.kind)"
        logger[metadataKey: "job.attempt"] = "\(job.attempt)"
        logger[metadataKey: "queue.name"] = "\(job.queue)"
        let started = now
        guard let runner = registry.runner(for: job.kind) else { return }  // claims only take registered kinds
        logger.debug("job started")
        let ending = await execute(job, runner: runner, stop: stop, logger: logger)
        let reason = stop.reason ?? (Task.isCancelled ? .shutdown : nil)
        do {
            switch (reason, ending) {
            case (.shutdown, _):
                _ = try await store.release([job.id], owner: configuration.workerID, now: now, reason: "given back at shutdown")
                logger.debug("job given back at shutdown")
            case (.leaseLost, _):
                logger.debug("job lost its lease to another worker; nothing recorded")
            case (_, .returned(let output)):
                try await record(job, .succeeded(output: output), started: started, logger: logger)
            case (.cancelRequested, .threw):
                try await record(job, .cancelled(reason: "cancelled while running"), started: started, logger: logger)
            case (.timedOut, .threw):
                let error = JobTimeoutError(milliseconds: job.timeoutMilliseconds ?? 0)
                try await record(job, retryOrFail(job, error, retryable: runner.shouldRetry(after: error)), started: started, logger: logger)
            case (nil, .threw(let error)):
                try await record(job, retryOrFail(job, error, retryable: runner.shouldRetry(after: error)), started: started, logger: logger)
            }
        } catch {
            // The job keeps its lease until it expires; then any worker recovers it. Nothing is lost.
            logger.debug("could not record the end of the attempt; the lease will expire and the job be recovered: \(error)")
        }
        jobChanges.signal()
    }

    /// Races the handler against the job's stop signal and its timeout.
    private func execute(_ job: ClaimedJob, runner: any JobRunner, stop: StopSignal, logger: Logger) async -> AttemptEnding {
        let context = JobContext(
            id: job.id, attempt: job.attempt, maxAttempts: job.maxAttempts, queue: job.queue, checkpoint: job.checkpoint,
            logger: logger,
            save: { [store, configuration, jobChanges, time = configuration.timeSource] progress, checkpoint in
                let saved = try await store.saveProgress(
                    job.id, owner: configuration.workerID, progress: progress, checkpoint: checkpoint, now: time.nowMilliseconds)
                guard saved else { throw LeaseLostError() }
                jobChanges.signal()
            }, jobQueue: self)
        let deadline = job.timeoutMilliseconds.map { Date(millisecondsSince1970: now + $0) }
        let time = configuration.timeSource
        // The handler runs in its own task so that a stop (cancel, timeout, shutdown) can cancel it;
        // the attempt then waits for it to end.
        let handler = Task { try await runner.run(input: job.input, context: context) }
        stop.onStop { _ in handler.cancel() }
        let timeout = deadline.map { deadline in
            Task {
                guard (try? await time.sleep(until: deadline)) != nil else { return }
                stop.stop(.timedOut)
            }
        }
        defer { timeout?.cancel() }
        let result = await withTaskCancellationHandler {
            await handler.result
        } onCancel: {
            handler.cancel()
        }
        switch result {
        case .success(let output): return .returned(output)
        case .failure(let error): return .threw(error)
        }
    }

    /// A failed attempt's outcome: another attempt after the backoff (or the error's
    /// ``RetryAfterError/retryAfter``, if longer), if the job type retries this error and attempts
    /// are left; else failure.
    private func retryOrFail(_ job: ClaimedJob, _ error: any Error, retryable: Bool) -> AttemptOutcome {
        let failure = JobFailure(error, retryable: retryable)
        let attemptsLeft = job.maxAttempts.map { job.attempt < $0 } ?? true
        guard retryable && attemptsLeft else { return .failed(failure) }
        let backoff = job.retryPolicy.flatMap { try? JSONDecoder().decode(Backoff.self, from: Data($0.utf8)) } ?? .default
        var delay = backoff.delayMilliseconds(afterAttempt: job.attempt, unit: Double.random(in: 0..<1))
        if let asked = (error as? any RetryAfterError)?.retryAfter { delay = max(delay, asked.milliseconds) }
        return .retry(failure, runAt: now + delay)
    }

    /// Records the attempt's outcome (committed before anyone hears of it) and reports it.
    private func record(_ job: ClaimedJob, _ outcome: AttemptOutcome, started: Int64, logger: Logger) async throws {
        let finished = now
        guard let state = try await recorder.record(FinishedAttempt(id: job.id, owner: configuration.workerID, outcome: outcome)) else {
            logger.debug("job lost its lease to another worker before its end was recorded")
            return
        }
        metrics.finished(job, as: state, ranMilliseconds: finished - started)
        logger.debug("job attempt ended", metadata: ["job.state": "\(state.rawValue)"])
    }
}
