import Foundation

/// A job in the queue file: its id, its state, its result, and a way to cancel it.
///
/// A handle is a cheap value; it works for jobs run by this process or by any other on the same file
/// (changes made elsewhere are seen within the queue's poll interval).
public struct JobHandle<J: Job>: Sendable {
    /// The job's id.
    public let id: JobID
    let queue: JobQueue

    /// The job's current state.
    ///
    /// - Throws: `jobNotFound` when the job does not exist (or was pruned).
    public func state() async throws -> JobState {
        try await queue.store.status(of: id).state
    }

    /// How far the job's current (or last) attempt came, from 0 to 1, as its handler saved it with
    /// ``JobContext/saveProgress(_:)``; nil before any was saved.
    ///
    /// - Throws: `jobNotFound` when the job does not exist (or was pruned).
    public func progress() async throws -> Double? {
        try await queue.store.status(of: id).progress
    }

    /// Waits for the job to finish and returns its output.
    ///
    /// The wait rides out store failures as the engine does: a locked device for however long it
    /// lasts, a lock held elsewhere or a server that does not answer for up to
    /// ``JobQueue/Configuration/storageFailureTimeout`` of failing reads in a row.
    ///
    /// - Throws: `jobFailed` (with the last error) or `cancelled` when it ended so; `jobNotFound`;
    ///   the store's error once its reads failed for the storage failure timeout;
    ///   `CancellationError` if the waiting task is cancelled.
    public func result() async throws -> J.Output {
        try output(of: try await queue.waitUntilFinished(id, deadline: nil))
    }

    /// Waits at most `timeout` for the job to finish and returns its output. The job is not cancelled
    /// when the wait times out.
    ///
    /// - Throws: `timedOut` when the job is not finished in time, or what ``result()`` throws.
    public func result(timeout: Duration) async throws -> J.Output {
        try output(of: try await queue.waitUntilFinished(id, deadline: queue.now + timeout.milliseconds))
    }

    /// Waits for the job to finish and returns how it ended: its output, its error, or that it was
    /// cancelled. Unlike ``result()`` it throws only when the outcome cannot be had. Store failures
    /// are ridden out as ``result()`` rides them out.
    ///
    /// - Throws: `jobNotFound`; the store's error once its reads failed for the storage failure
    ///   timeout; `CancellationError` if the waiting task is cancelled.
    public func outcome() async throws -> JobOutcome<J.Output> {
        try outcome(of: try await queue.waitUntilFinished(id, deadline: nil))
    }

    /// Waits at most `timeout` for the job to finish and returns how it ended; see ``outcome()``.
    ///
    /// - Throws: `timedOut` when the job is not finished in time, or what ``outcome()`` throws.
    public func outcome(timeout: Duration) async throws -> JobOutcome<J.Output> {
        try outcome(of: try await queue.waitUntilFinished(id, deadline: queue.now + timeout.milliseconds))
    }

    /// Cancels the job; see ``JobQueue/Jobs/cancel(_:)-(JobID)``.
    public func cancel() async throws {
        try await queue.jobs.cancel(id)
    }

    /// Sends the job signal `name` with `payload`; see ``JobQueue/Jobs/signal(_:_:payload:)``.
    @discardableResult
    public func signal<P: Encodable & Sendable>(_ name: String, payload: P) async throws -> SignalResult {
        try await queue.jobs.signal(id, name, payload: payload)
    }

    /// Sends the job signal `name` without a payload; see ``JobQueue/Jobs/signal(_:_:)``.
    @discardableResult
    public func signal(_ name: String) async throws -> SignalResult {
        try await queue.jobs.signal(id, name)
    }

    /// The job's states as they change, starting with the current one and ending after a terminal
    /// state. States passed through between two looks (faster than the poll interval, in another
    /// process) may be skipped; the history in `job_events` has them all.
    public var stateChanges: AsyncThrowingStream<JobState, any Error> {
        queue.changes { [id] store in
            let state = try await store.status(of: id).state
            return (state, state.isTerminal)
        }
    }

    /// The job's progress as its handler saves it, from whatever process runs it: the current value
    /// first (once one was saved), then each new one, ending when the job finishes. A save in this
    /// process is seen at once, one in another process within the poll interval; values saved
    /// faster than they are read show as the latest.
    ///
    /// For example:
    /// ```swift
    /// for try await fraction in download.progressChanges { bar.update(fraction) }
    /// ```
    public var progressChanges: AsyncThrowingStream<Double, any Error> {
        let changes = queue.changes { [id] store in
            let status = try await store.status(of: id)
            return (status.progress, status.state.isTerminal)
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Double.self)
        let forward = Task {
            do {
                for try await progress in changes { if let progress { continuation.yield(progress) } }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forward.cancel() }
        return stream
    }

    private func outcome(of record: JobRecord) throws -> JobOutcome<J.Output> {
        switch record.state {
        case .succeeded:
            do {
                return .succeeded(try queue.files.resolvedValue(J.Output.self, from: record.output ?? "null"))
            } catch where record.version != J.version {
                throw DurableQueueError.outputVersionMismatch(
                    "the output of job \(record.id)", stored: KindVersion(kind: record.kind, version: record.version), reader: J.version,
                    cause: error, jobID: record.id, queue: record.queue)
            }
        case .cancelled:
            return .cancelled
        default:
            return .failed(record.error ?? JobFailure(type: "Unknown", message: "no error was recorded", retryable: false))
        }
    }

    /// The output of a finished job, or the error ``result()`` throws for one that did not succeed.
    private func output(of record: JobRecord) throws -> J.Output {
        switch try outcome(of: record) {
        case .succeeded(let output):
            return output
        case .cancelled:
            throw DurableQueueError(.cancelled, "the job was cancelled", jobID: record.id, queue: record.queue)
        case .failed(let failure):
            throw DurableQueueError(
                .jobFailed, "the job failed after \(record.attempts) attempt(s): \(failure)", jobID: record.id, queue: record.queue)
        }
    }
}

extension JobQueue {
    /// Waits until job `id` is finished (or `deadline`, in ms since 1970, passes) and returns its row.
    ///
    /// Store failures are ridden out as the engine rides them out: while the file is unavailable
    /// (a locked device) it waits however long it takes; a read that failed for a lock held
    /// elsewhere or a storage error (a server that did not answer within its call timeout) is tried
    /// again at the next poll, until reads have failed for ``Configuration/storageFailureTimeout``:
    /// then that error is thrown. A loaded server that misses one read does not end the wait for a
    /// job that is about to finish.
    func waitUntilFinished(_ id: JobID, deadline: Int64?) async throws -> JobRecord {
        var failingSince: Int64?
        while true {
            let seen = jobChanges.generation
            var record: JobRecord?
            do {
                record = try await store.job(id)
                failingSince = nil
            } catch let error as DurableQueueError where error.code == .protectedDataUnavailable {
                record = nil
            } catch let error as DurableQueueError where error.code == .storage || error.code == .databaseLocked {
                let since = failingSince ?? now
                guard now - since < configuration.storageFailureTimeout.milliseconds else { throw error }
                failingSince = since
                record = nil
            }
            if let record, record.state.isTerminal { return record }
            if let deadline, now >= deadline {
                let state = record.map { "it is \($0.state.rawValue)" } ?? "its store could not be read"
                throw DurableQueueError(.timedOut, "the job did not finish in time (\(state))", jobID: id)
            }
            await waitForChange(after: seen, deadline: deadline)
            try Task.checkCancellation()
        }
    }

    /// The values `read` returns as they change, starting with the current one and ending after
    /// `read` says the thing watched has finished; re-read on every change in this process and
    /// every poll interval.
    func changes<Value: Equatable & Sendable>(
        _ read: @escaping @Sendable (any JobStore) async throws -> (value: Value, finished: Bool)
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self)
        let task = Task { [self] in
            do {
                var last: Value?
                while !Task.isCancelled {
                    let seen = jobChanges.generation
                    let (value, finished) = try await read(store)
                    if value != last {
                        continuation.yield(value)
                        last = value
                    }
                    if finished { break }
                    await waitForChange(after: seen, deadline: nil)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Waits for a change in this process, the poll interval (changes in others), or `deadline`;
    /// while this process is paused, no poll: its resume is a change.
    func waitForChange(after seen: UInt64, deadline: Int64?) async {
        let interval = idlePollExpectingChanges()
        let poll = engine.state.isPaused ? Int64.max / 2 : now + interval.milliseconds
        let wake = min(deadline ?? .max, poll)
        await jobChanges.wait(after: seen, until: Date(millisecondsSince1970: wake), time: configuration.timeSource)
    }
}
