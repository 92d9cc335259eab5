import Foundation
import Synchronization

/// What a running attempt's context writes through, one object per attempt: progress and
/// checkpoints, a hand-off, durable steps. Each write is fenced by the attempt (job id, attempt
/// number) under this worker.
final class AttemptSession: Sendable {
    /// The steps of the job recorded by earlier attempts (loaded at the first step), and the names
    /// used by this attempt so far.
    private struct Steps {
        var recorded: [String: String]
        var used: Set<String> = []
        /// Durable sleeps so far in this attempt: the next one's step is `sleep <count + 1>`.
        var sleeps = 0
    }

    private let engine: JobEngine
    private let job: ClaimedJob
    private let runner: any JobRunner
    private let stop: StopSignal
    private let steps = Mutex<Steps?>(nil)

    init(engine: JobEngine, job: ClaimedJob, runner: any JobRunner, stop: StopSignal) {
        self.engine = engine
        self.job = job
        self.runner = runner
        self.stop = stop
    }

    /// Saves progress and a checkpoint; throws if this worker no longer holds the attempt.
    func save(progress: Double?, checkpoint: [UInt8]?) async throws {
        try checkNotAbandoned()
        let saved = try await engine.store.saveProgress(
            job.attemptID, owner: engine.configuration.workerID, progress: progress, checkpoint: checkpoint, now: engine.now)
        guard saved else { throw LeaseLostError() }
        engine.jobChanges.signal()
    }

    /// Hands the attempt off (see ``JobContext/handOff(to:reference:deadline:start:)``).
    func handOff(
        to carrier: String, reference: String, deadline: Duration?, start: @escaping @Sendable () async throws -> Void
    ) async throws -> Never {
        let request = HandOffRequest(carrier: carrier, reference: reference, timeout: deadline.map { max(0, $0.milliseconds) })
        try await engine.handOff(job, runner: runner, to: request, stop: stop, start: start)
    }

    /// Step `name`'s recorded output (under it or a `former` name), or its body's, recorded before
    /// it is returned (see ``JobContext/step(_:formerly:_:)->_``).
    func step<T: Codable & Sendable>(_ name: String, formerly former: [String] = [], _ body: () async throws -> T) async throws -> T {
        if let recorded: T = try await recordedOutput(of: name, formerly: former) { return recorded }
        let value = try await body()
        let step = try stepRecord(name, value)
        // Grouped with the steps of the attempts running beside this one: one commit for all.
        guard try await engine.steps.record(PendingStep(step: step, attempt: job.attemptID, owner: engine.configuration.workerID))
        else { throw LeaseLostError() }
        engine.jobChanges.signal()
        return value
    }

    /// Step `name` whose body runs in the store's transaction, committed with its record (see
    /// ``JobContext/step(_:formerly:inTransaction:)->_``).
    func step<T: Codable & Sendable>(
        _ name: String, formerly former: [String] = [], inTransaction body: @escaping @Sendable (QueueTransaction) throws -> T
    ) async throws -> T {
        if let recorded: T = try await recordedOutput(of: name, formerly: former) { return recorded }
        let (attempt, owner) = (job.attemptID, engine.configuration.workerID)
        let value = try await engine.queue.transaction { [self] transaction, store, now in
            let value = try body(transaction)
            var step = try stepRecord(name, value)
            step.recordedAt = now
            // A stale attempt's writes roll back with its step.
            guard try store.recordStep(step, attempt: attempt, owner: owner) else { throw LeaseLostError() }
            return value
        }
        engine.jobChanges.signal()
        return value
    }

    /// Sleeps durably for `duration` from now, by the queue's clock; see ``sleep(until:)``.
    func sleep(for duration: Duration) async throws {
        try await sleep(until: engine.now + duration.milliseconds)
    }

    /// Sleeps durably until `wake` (see ``JobContext/sleep(until:)``): the first time, the wake time
    /// is recorded as step `sleep N` (the Nth sleep of the run); until it has come, the attempt ends
    /// (``DurableSleep``) and the job waits `scheduled` for it; after, this returns at once.
    func sleep(until wake: Int64) async throws {
        try await loadSteps()
        let number = steps.withLock { steps -> Int in
            steps!.sleeps += 1
            return steps!.sleeps
        }
        let wakeAt = try await step("sleep \(number)") { wake }
        if engine.now < wakeAt { throw DurableSleep(until: wakeAt) }
    }

    /// Signal `name`'s payload (see ``JobContext/waitForSignal(_:as:timeout:)``): what the wait's step
    /// recorded in an earlier attempt, else the signal if it was sent; else the attempt ends and the
    /// job waits for it until `timeout` from now.
    func waitForSignal<T: Decodable & Sendable>(_ name: String, as type: T.Type, timeout: Duration?) async throws -> T {
        guard SignalRule.isValid(name: name) else { throw DurableQueueError.invalidArgument("signal", "a signal's name must not be empty") }
        if let recorded: RecordedWait<T> = try await recordedOutput(of: SignalRule.stepName(name)) {
            return try recorded.payload(signal: name)
        }
        let waited = try await engine.store.waitForSignal(
            job.attemptID, owner: engine.configuration.workerID, name: name, timeout: timeout.map { max(0, $0.milliseconds) },
            now: engine.now)
        engine.jobChanges.signal()
        switch waited {
        case nil: throw LeaseLostError()
        case .received(let payload): return try engine.queue.files.resolvedValue(T.self, from: payload)
        case .ended(let state): throw AttemptEndedInStore(state: state)
        }
    }

    /// Reads the job's recorded steps, once per attempt (none for a job the claim found without).
    private func loadSteps() async throws {
        guard steps.withLock({ $0 == nil }) else { return }
        let recorded = job.mayHaveSteps ? try await engine.store.steps(of: job.id) : []
        steps.withLock { steps in
            if steps == nil { steps = Steps(recorded: Dictionary(recorded.map { ($0.name, $0.output) }) { first, _ in first }) }
        }
    }

    /// The output step `name` recorded in an earlier attempt, under its name or else under the
    /// first of its `former` names that has one, decoded; nil when it has none.
    ///
    /// - Throws: `invalidArgument` for an empty name or one this attempt used already; a storage
    ///   error; the lease lost (an abandoned handler).
    private func recordedOutput<T: Decodable>(of name: String, formerly former: [String] = []) async throws -> T? {
        guard StepRule.isValid(name: name) else { throw DurableQueueError.invalidArgument("step", "a step's name must not be empty") }
        try checkNotAbandoned()
        try await loadSteps()
        let output = try steps.withLock { steps -> String? in
            guard steps!.used.insert(name).inserted else {
                throw DurableQueueError.invalidArgument("step", "step '\(name)' ran already in this attempt: each step needs a name of its own")
            }
            // A former name is the step's own: asked for, whether or not it has a record.
            steps!.used.formUnion(former)
            return StepRule.recordedOutput(of: name, formerly: former, in: steps!.recorded)
        }
        return try output.map { try engine.queue.files.resolvedValue(T.self, from: $0) }
    }

    /// The history's note of the steps earlier attempts recorded that this attempt never asked for
    /// (``StepRule/unaskedNote(recorded:asked:)``); nil when there are none, or when this attempt
    /// asked for no step (its steps were never read: a job that uses none reads none).
    func unaskedStepsNote() -> String? {
        steps.withLock { steps in steps.flatMap { StepRule.unaskedNote(recorded: Set($0.recorded.keys), asked: $0.used) } }
    }

    /// The record of step `name` with output `value`, at this moment.
    private func stepRecord<T: Encodable>(_ name: String, _ value: T) throws -> StepRecord {
        StepRecord(job: job.id, name: name, attempt: job.attempt, output: try engine.queue.files.storedJSON(value), recordedAt: engine.now)
    }

    /// An abandoned handler still runs, but its job was given back with its attempt number, which
    /// the next attempt in this process reuses under the same owner: the store's fence cannot tell
    /// the two apart, so writes refuse here.
    private func checkNotAbandoned() throws {
        guard !stop.isAbandoned else { throw LeaseLostError() }
    }
}

/// Ends an attempt that sleeps durably until `until` (ms since 1970): the engine records the
/// attempt as ``AttemptOutcome/sleeping(until:)``.
struct DurableSleep: Error, CustomStringConvertible {
    let until: Int64
    var description: String { "sleeping until \(until)" }
}

/// The recorded outcome of a wait for a signal (``SignalRule/receivedOutput(payload:)`` or
/// ``SignalRule/timedOutOutput(deadline:)``), decoded with the payload's type.
private enum RecordedWait<T: Decodable>: Decodable {
    case received(T)
    /// The wait timed out at this deadline (milliseconds since 1970).
    case timedOut(Int64)

    private enum CodingKeys: String, CodingKey { case payload, timedOut }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let deadline = try container.decodeIfPresent(Int64.self, forKey: .timedOut) {
            self = .timedOut(deadline)
        } else {
            self = .received(try container.decode(T.self, forKey: .payload))
        }
    }

    /// The payload; throws ``SignalTimeoutError`` for a wait for `signal` that timed out.
    func payload(signal: String) throws -> T {
        switch self {
        case .received(let payload): return payload
        case .timedOut(let deadline): throw SignalTimeoutError(signal: signal, deadline: Date(millisecondsSince1970: deadline))
        }
    }
}
