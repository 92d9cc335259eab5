extension JobQueue.Jobs {
    /// Sends signal `name` with `payload` to job `id`, from any process: the job's
    /// ``JobContext/waitForSignal(_:as:timeout:)`` for `name` returns `payload`.
    ///
    /// A job waiting for it becomes `pending` at once (history: `signal 'name' received`); a job
    /// not waiting for it yet keeps it for its wait. A signal is sent once per job and name: a
    /// second one changes nothing (``SignalResult/alreadySent``), and a finished job keeps nothing.
    ///
    /// - Parameters:
    ///   - id: The job.
    ///   - name: The signal's name (not empty).
    ///   - payload: What the wait returns; it must encode as JSON and decode as the type the
    ///     handler waits for.
    /// - Returns: What the signal did.
    /// - Throws: `jobNotFound`; `invalidArgument` for an empty name; a storage error.
    @discardableResult
    public func signal<P: Encodable & Sendable>(_ id: JobID, _ name: String, payload: P) async throws -> SignalResult {
        try await signal(id, name, payloadJSON: try jobQueue.files.storedJSON(payload))
    }

    /// Sends signal `name` without a payload (JSON `null`) to job `id`; see ``signal(_:_:payload:)``.
    /// The handler waits for it with ``JobContext/waitForSignal(_:timeout:)``.
    @discardableResult
    public func signal(_ id: JobID, _ name: String) async throws -> SignalResult {
        try await signal(id, name, payloadJSON: "null")
    }

    /// Sends signal `name` whose payload is the JSON text `payloadJSON` to job `id`: what
    /// `durableq signal` and the dashboard send.
    ///
    /// - Throws: `invalidArgument` for text that is not JSON; as ``signal(_:_:payload:)``.
    package func signal(_ id: JobID, _ name: String, payloadJSON: String) async throws -> SignalResult {
        guard SignalRule.isValid(name: name) else { throw DurableQueueError.invalidArgument("signal", "a signal's name must not be empty") }
        do {
            _ = try JSONParser.parse(payloadJSON)
        } catch {
            throw DurableQueueError.invalidArgument("payload", "\(payloadJSON.prefix(80)) is not JSON (\(error))")
        }
        let result = try await jobQueue.store.signal(id, name: name, payload: payloadJSON, now: jobQueue.now)
        if result == .wokeJob {
            jobQueue.workArrived()
            jobQueue.jobChanges.signal()
        }
        return result
    }
}
