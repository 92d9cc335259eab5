extension JobQueue {
    /// Enqueues one job per input and the batch's callbacks, all in one transaction: the
    /// ``BatchCallbacks/onSuccess`` job runs once every job has succeeded (it is cancelled if one
    /// does not), the ``BatchCallbacks/onComplete`` job once every job has ended, however, and reads
    /// how in ``JobContext/batchSummary()``. Each callback waits for the batch's jobs as a
    /// ``Dependency``: it starts once, in whatever process ends the last job, whatever crashes.
    ///
    /// ```swift
    /// let batch = try await queue.enqueue(
    ///     Resize.self, batch: photos,
    ///     callbacks: BatchCallbacks(onComplete: .job(NotifyAlbumReady.self, album.id)))
    /// ```
    ///
    /// - Throws: `invalidArgument` for an empty batch or no callback; what ``enqueue(_:batch:options:)`` throws.
    @discardableResult
    public func enqueue<J: Job>(
        _ type: J.Type, batch inputs: [J.Input], options: EnqueueOptions = EnqueueOptions(), callbacks: BatchCallbacks
    ) async throws -> BatchHandle {
        guard !inputs.isEmpty else { throw DurableQueueError.invalidArgument("batch", "is empty: its callbacks would wait for nothing") }
        guard callbacks.onSuccess != nil || callbacks.onComplete != nil else {
            throw DurableQueueError.invalidArgument("callbacks", "name onSuccess, onComplete or both; or enqueue the batch without callbacks")
        }
        return try await transaction { transaction in
            let jobs = try inputs.map { try transaction.enqueue(J.self, $0, options: options) }
            func edges(_ onFailure: Dependency.OnFailure) -> [Dependency] {
                jobs.enumerated().map { Dependency(BatchSummary.edgeName($0.offset), on: $0.element, onFailure: onFailure) }
            }
            return BatchHandle(
                jobs: jobs, onSuccess: try callbacks.onSuccess?.enqueue(transaction, edges(.cancel)),
                onComplete: try callbacks.onComplete?.enqueue(transaction, edges(.run)))
        }
    }
}
