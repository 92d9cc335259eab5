import Foundation
import Logging

/// What a running attempt knows about its job, and how it reports progress.
public struct JobContext: Sendable {
    /// The job's id.
    public let id: JobID
    /// The attempt now running, from 1.
    public let attempt: Int
    /// The most attempts allowed; nil means unlimited.
    public let maxAttempts: Int?
    /// The name of the queue the job is on.
    public let queue: String
    /// The job's priority; jobs it enqueues inherit it unless their options set another.
    public let priority: Priority
    /// The bytes an earlier attempt saved with ``saveCheckpoint(_:)``, to resume from; nil on a fresh start.
    public let checkpoint: [UInt8]?
    /// A logger carrying `job.id`, `job.kind`, `job.attempt` and `queue.name` metadata.
    public let logger: Logger
    /// What the attempt writes through: progress, checkpoints, a hand-off, steps.
    let session: AttemptSession
    /// The queue file the job runs from, for follow-up jobs.
    let jobQueue: JobQueue

    /// Records how far the attempt has come, from 0 to 1, in the job's row.
    ///
    /// - Throws: `invalidArgument` outside 0…1, or a storage error.
    public func saveProgress(_ fraction: Double) async throws {
        try await session.save(progress: fraction, checkpoint: nil)
    }

    /// Stores `bytes` in the job's row: a later attempt (after a crash or a retry) receives them as
    /// ``checkpoint`` and can resume from there. Returns after the bytes are committed.
    public func saveCheckpoint(_ bytes: [UInt8]) async throws {
        try await session.save(progress: nil, checkpoint: bytes)
    }

    /// Records progress and checkpoint in one commit.
    public func save(progress: Double, checkpoint: [UInt8]) async throws {
        try await session.save(progress: progress, checkpoint: checkpoint)
    }

    /// Ends this attempt as *handed off* to `carrier`, which goes on with the work outside the
    /// process (a background transfer) and reports its end later with
    /// ``JobQueue/HandOffs/complete(job:attempt:output:)`` or ``JobQueue/HandOffs/fail(job:attempt:error:retryable:)``,
    /// naming this job's ``id`` and ``attempt``.
    ///
    /// The hand-off is committed first: the job is `handed_off` (history: `handed off to …`), holds
    /// no worker slot and no lease, and only a report for this attempt ends it. Then `start` runs:
    /// it starts the carrier's transfer (which may end and report at once). If `start` throws,
    /// nothing carries the attempt, and it ends with that error by the job's retry policy. This call
    /// never returns: it throws to end the handler, which should let the error through.
    ///
    /// ```swift
    /// let task = session.downloadTask(with: request)
    /// task.taskDescription = "\(context.id):\(context.attempt)"
    /// try await context.handOff(to: "downloads", reference: task.taskDescription!, deadline: .seconds(86_400)) {
    ///     task.resume()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - carrier: The carrier's name (see ``HandOffCarrier``); register the carrier with
    ///     ``JobQueue/register(carrier:)`` so that lost transfers are found at start-up.
    ///   - reference: What the carrier calls the transfer.
    ///   - deadline: How long the hand-off may last, from the moment it is recorded (its history
    ///     row's time): after that, the attempt counts as failed and the job retries or fails by its
    ///     policy. Nil (the default): no limit.
    ///   - start: Starts the transfer, after the hand-off is committed.
    /// - Throws: Always: the handler's attempt has ended (a cancel requested meanwhile ends the job as
    ///   `cancelled`, and `start` does not run); or a storage error, or the lease was lost (nothing
    ///   was handed off).
    public func handOff(
        to carrier: String, reference: String, deadline: Duration? = nil, start: @escaping @Sendable () async throws -> Void
    ) async throws -> Never {
        try await session.handOff(to: carrier, reference: reference, deadline: deadline, start: start)
    }

    /// Runs `body` once for this job, however many attempts it takes: a *durable step*.
    ///
    /// When `body` returns, its output is committed (with a history row, `step 'name' recorded`)
    /// before this returns it. On any later attempt — after a crash, a retry, a lease lost — the step
    /// returns the recorded output without running `body`. So a job that charged a card in step
    /// "charge" and then crashed does not charge it again:
    ///
    /// ```swift
    /// let receipt = try await context.step("charge") { try await payments.charge(order) }
    /// try await context.step("email") { try await mailer.send(receipt) }
    /// ```
    ///
    /// The record is fenced by the attempt: an attempt that is no longer the job's current one (its
    /// worker was frozen past its lease and another took the job) records nothing, and its attempt
    /// ends there (the step throws). A body that throws records nothing: the step runs again on the
    /// next attempt. What `body` does outside the queue's database is not undone by a crash before
    /// the record commits: make it idempotent, or use ``step(_:formerly:inTransaction:)->_`` for writes to the
    /// queue's own database. Outputs are readable through ``JobHandle/steps()`` and, in `sqlite3` or
    /// `psql`, `job_steps` and `job_step_list`.
    ///
    /// A step renamed in new code names what older code called it in `formerly`: an output
    /// recorded under a former name is returned as this step's, so its body does not run again for
    /// a job that older code began (see <doc:UpgradingYourJobs>). When a job ends, the history's
    /// reason lists the steps earlier attempts recorded that its last attempt never asked for
    /// (by name or former name), if that attempt asked for any step.
    ///
    /// - Parameters:
    ///   - name: The step's name: unique within the job (a name used twice in one attempt is an error).
    ///   - formerly: Names this step had in earlier versions of the job's code, newest first.
    ///   - body: The step's work; its output must encode as JSON.
    /// - Throws: `invalidArgument` for an empty name or one this attempt used already; what `body`
    ///   throws; a storage error; or, when this worker no longer holds the attempt, an error that
    ///   ends it.
    public func step<T: Codable & Sendable>(_ name: String, formerly: [String] = [], _ body: () async throws -> T) async throws -> T {
        try await session.step(name, formerly: formerly, body)
    }

    /// A durable step with no output (see ``step(_:formerly:_:)->_``): its body runs once per job.
    public func step(_ name: String, formerly: [String] = [], _ body: () async throws -> Void) async throws {
        _ = try await session.step(name, formerly: formerly) {
            try await body()
            return NoStepOutput()
        }
    }

    /// A durable step with no output whose body runs in the queue's database transaction (see
    /// ``step(_:formerly:inTransaction:)->_``).
    public func step(
        _ name: String, formerly: [String] = [], inTransaction body: @escaping @Sendable (QueueTransaction) throws -> Void
    ) async throws {
        _ = try await session.step(name, formerly: formerly, inTransaction: { transaction in
            try body(transaction)
            return NoStepOutput()
        })
    }

    /// A durable step whose body runs inside the queue's database transaction: its writes (your SQL,
    /// jobs it enqueues) and the step's record commit together — or, for an attempt that is no
    /// longer the job's current one, roll back together. Exactly once for effects in the queue's own
    /// database (a ledger row written once); see ``step(_:formerly:_:)->_`` for the rest.
    ///
    /// ```swift
    /// try await context.step("ledger", inTransaction: { tx in
    ///     try tx.execute("INSERT INTO ledger (order_id, cents) VALUES (?, ?)", [.integer(id), .integer(cents)])
    /// })
    /// ```
    ///
    /// - Parameters:
    ///   - name: The step's name, unique within the job.
    ///   - formerly: Names this step had in earlier versions of the job's code (see ``step(_:formerly:_:)->_``).
    ///   - body: Synchronous work in the transaction (see ``QueueTransaction``).
    /// - Throws: As ``step(_:formerly:_:)->_``; an error `body` throws rolls the transaction back.
    @discardableResult
    public func step<T: Codable & Sendable>(
        _ name: String, formerly: [String] = [], inTransaction body: @escaping @Sendable (QueueTransaction) throws -> T
    ) async throws -> T {
        try await session.step(name, formerly: formerly, inTransaction: body)
    }

    /// Sleeps durably for `duration`: the job leaves `running` (history: `sleeping for …`), holds
    /// no worker slot and no lease, spends no attempt, survives restarts, and its handler runs again
    /// from the top after the time — its steps done return their recorded outputs without running
    /// (see ``step(_:formerly:_:)->_``), and this call returns at once. A sleep of days costs nothing meanwhile.
    ///
    /// ```swift
    /// try await context.step("send reminder") { try await mailer.remind(user) }
    /// try await context.sleep(for: .seconds(3 * 86_400))
    /// try await context.step("send last call") { try await mailer.lastCall(user) }
    /// ```
    ///
    /// Each sleep of a run is recorded as a step named `sleep 1`, `sleep 2`… (its wake time), so a
    /// handler must sleep in the same order on every run; do not name your own steps so. A cancel
    /// reaches a sleeping job at once (it waits `scheduled`).
    ///
    /// - Throws: To end the attempt while it sleeps (let it through); a storage error; the lease lost.
    public func sleep(for duration: Duration) async throws {
        try await session.sleep(for: duration)
    }

    /// Sleeps durably until `date`; see ``sleep(for:)``.
    public func sleep(until date: Date) async throws {
        try await session.sleep(until: date.millisecondsSince1970)
    }

    /// Waits durably for signal `name` and returns its payload, sent by ``JobQueue/Jobs/signal(_:_:payload:)``
    /// from any process (or `durableq signal`, or the dashboard).
    ///
    /// If the signal was sent already — before the wait, too: a signal is kept for its job — this
    /// returns it at once. Otherwise the attempt ends here without counting, and the job waits in
    /// the state `waiting` (history: `waiting for signal 'name'`), holding no worker slot and no
    /// lease, across restarts, until the signal comes or `timeout` passes; then the handler runs
    /// again from the top, its steps done return their recorded outputs (see ``step(_:formerly:_:)->_``), and
    /// this call returns the payload or throws ``SignalTimeoutError``. What ended the wait is
    /// recorded as step `signal name`, so every later attempt gets the same answer.
    ///
    /// ```swift
    /// let order = try await context.step("reserve") { try await stock.reserve(input.items) }
    /// do {
    ///     let approval = try await context.waitForSignal("approved", as: Approval.self, timeout: .seconds(86_400))
    ///     try await context.step("ship") { try await shipping.ship(order, by: approval.clerk) }
    /// } catch is SignalTimeoutError {
    ///     try await context.step("release") { try await stock.release(order) }
    /// }
    /// ```
    ///
    /// A timeout is enforced by the engines' recovery of expired leases, so it may be noticed up
    /// to half a ``JobQueue/Configuration/leaseDuration`` late. A cancel reaches a waiting job at
    /// once. Wait for each name once per job.
    ///
    /// - Parameters:
    ///   - name: The signal's name (not empty).
    ///   - type: The payload's type.
    ///   - timeout: How long to wait from the first call; nil waits for as long as it takes.
    /// - Throws: ``SignalTimeoutError``; to end the attempt while the job waits (let it through); a
    ///   payload that does not decode as `type`; a storage error; the lease lost.
    public func waitForSignal<T: Codable & Sendable>(_ name: String, as type: T.Type = T.self, timeout: Duration? = nil)
        async throws -> T
    {
        try await session.waitForSignal(name, as: type, timeout: timeout)
    }

    /// Waits durably for signal `name`, whatever its payload (one sent by ``JobQueue/Jobs/signal(_:_:)``,
    /// or any other); see ``waitForSignal(_:as:timeout:)``.
    public func waitForSignal(_ name: String, timeout: Duration? = nil) async throws {
        _ = try await session.waitForSignal(name, as: AnyPayload.self, timeout: timeout)
    }

    /// Enqueues a follow-up job, committed before this returns: on this job's queue with default
    /// options when `options` is nil, else where `options` says (any named queue). It has this job's
    /// ``priority`` unless `options` sets another.
    ///
    /// The follow-up is independent of this attempt: if the attempt later fails and is retried, the
    /// retry enqueues again. Give the follow-up a ``EnqueueOptions/uniqueKey`` to enqueue it once.
    ///
    /// For example, to page through an API on a throttled queue:
    /// ```swift
    /// if let next = page.next { _ = try await context.enqueue(FetchPage.self, next) }
    /// ```
    @discardableResult
    public func enqueue<J: Job>(_ type: J.Type, _ input: J.Input, options: EnqueueOptions? = nil) async throws -> JobHandle<J> {
        try await jobQueue.enqueue(type, input, options: options ?? EnqueueOptions(queue: queue), inheriting: priority)
    }

    /// The output of this job's dependency `name` (``EnqueueOptions/dependsOn``), decoded as
    /// `type`; nil when that job did not succeed (its edge let this job run anyway: ``Dependency/OnFailure/run``
    /// or ``Dependency/OnFailure/ignore``).
    ///
    /// - Throws: `invalidArgument` when the job has no dependency named `name`; a decoding error
    ///   (``dependencyOutput(_:of:)`` names the versions of a job type's outputs).
    public func dependencyOutput<T: Decodable>(_ name: String, as type: T.Type = T.self) async throws -> T? {
        let dependency = try await dependency(named: name)
        guard dependency.outcome == .succeeded, let output = dependency.output else { return nil }
        return try JobCodec.decode(T.self, from: output)
    }

    /// The output of this job's dependency `name`, a job of type `type`: as
    /// ``dependencyOutput(_:as:)``, decoded as `type`'s output.
    ///
    /// - Throws: `invalidArgument` when the job has no dependency named `name`; `versionMismatch`
    ///   naming both versions when another version of the type stored an output this one cannot read.
    public func dependencyOutput<J: Job>(_ name: String, of type: J.Type) async throws -> J.Output? {
        let dependency = try await dependency(named: name)
        guard dependency.outcome == .succeeded, let output = dependency.output else { return nil }
        do {
            return try JobCodec.decode(J.Output.self, from: output)
        } catch {
            guard let parent = dependency.parent, parent.kind == J.name, parent.version != J.version else { throw error }
            throw DurableQueueError.outputVersionMismatch(
                "the output of dependency '\(dependency.name)' (job \(dependency.job))", stored: parent, reader: J.version, cause: error,
                jobID: id)
        }
    }

    /// The outputs of every dependency that succeeded, by name, decoded as `type`: what a job that
    /// waits for the children another job fanned out reads of them.
    public func dependencyOutputs<T: Decodable>(as type: T.Type = T.self) async throws -> [String: T] {
        var outputs: [String: T] = [:]
        for dependency in try await jobQueue.store.dependencies(of: id) where dependency.outcome == .succeeded {
            guard let output = dependency.output else { continue }
            outputs[dependency.name] = try JobCodec.decode(T.self, from: output)
        }
        return outputs
    }

    /// The error of this job's dependency `name` when it failed and its edge says
    /// ``Dependency/OnFailure/run``; nil otherwise (an ignored failure is not shown).
    ///
    /// - Throws: `invalidArgument` when the job has no dependency named `name`.
    public func dependencyFailure(_ name: String) async throws -> JobFailure? {
        let dependency = try await dependency(named: name)
        guard dependency.onFailure == .run, dependency.outcome != .succeeded else { return nil }
        return dependency.error ?? dependency.outcome.map { JobFailure(type: "Cancelled", message: "job \(dependency.job) was \($0.rawValue)", retryable: false) }
    }

    /// In a batch's callback (``JobQueue/enqueue(_:batch:options:callbacks:)``): how many of the
    /// batch's jobs there are and succeeded, and which failed or were cancelled.
    ///
    /// - Throws: `invalidArgument` when this job is not a batch's callback.
    public func batchSummary() async throws -> BatchSummary {
        guard let summary = BatchSummary(try await jobQueue.store.dependencies(of: id)) else {
            throw DurableQueueError(.invalidArgument, "job \(id) is not the callback of a batch", jobID: id)
        }
        return summary
    }

    private func dependency(named name: String) async throws -> DependencyRecord {
        guard let dependency = try await jobQueue.store.dependencies(of: id).first(where: { $0.name == name }) else {
            throw DurableQueueError(.invalidArgument, "job \(id) has no dependency named '\(name)'", jobID: id)
        }
        return dependency
    }

    /// `path` as the queue stores it, relative to a base that moves with the app's container; see
    /// ``JobQueue/storedPath(_:)``. For paths a handler keeps in its checkpoint.
    public func storedPath(_ path: String) -> String {
        jobQueue.storedPath(path)
    }

    /// The path that a ``storedPath(_:)`` names now; see ``JobQueue/resolvedPath(_:)``.
    public func resolvedPath(_ stored: String) throws -> String {
        try jobQueue.resolvedPath(stored)
    }

    /// Enqueues a sequence or group (see ``JobQueue/enqueue(_:)``), committed before this returns;
    /// its jobs have this job's ``priority`` unless their options or their group set another.
    @discardableResult
    public func enqueue(_ composition: Composition) async throws -> GroupHandle {
        try await jobQueue.enqueue(composition, inheriting: priority)
    }
}

/// The output recorded for a step whose body returns nothing.
private struct NoStepOutput: Codable, Sendable {}

/// A signal's payload that is not read: any JSON value decodes as it.
private struct AnyPayload: Codable, Sendable {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}
