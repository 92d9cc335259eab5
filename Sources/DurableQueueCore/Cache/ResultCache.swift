import Foundation

/// Values computed once per key by a job of type `J`, remembered in the queue file, with each key's
/// state observable: thumbnails, API lookups keyed by id, list cells.
///
/// A key is computed by one job at a time, however many callers or processes ask; callers that ask
/// while it runs wait for the same job. A failed key is computed again on the next request, until it
/// has failed ``maxFailures`` times; it then stays failed until ``reset(_:)``.
///
/// For example:
/// ```swift
/// let thumbnails = queue.cache(for: MakeThumbnail.self)
/// let path = try await thumbnails.value(forKey: "photo-42", computedBy: .init(photo: "42.jpg", width: 320))
/// for try await state in thumbnails.states(forKey: "photo-43") { … }   // e.g. on the main actor
/// ```
public struct ResultCache<J: Job>: Sendable {
    /// The namespace keys live in (default: the job type's name).
    public let namespace: String
    /// How many failed computations a key allows before it stays failed; nil for unlimited.
    public let maxFailures: Int?
    /// How computing jobs are enqueued (queue, priority, retries of one computation …).
    public let options: EnqueueOptions
    let queue: JobQueue

    /// The value of `key`: the stored one, or that of the job computing it now, or of a new job with
    /// `input` enqueued for it. Returns once the value is stored.
    ///
    /// - Throws: `jobFailed` when the computation failed (the next call tries again, unless the key
    ///   has used up ``maxFailures``: then until ``reset(_:)``), `cancelled`, or a storage error.
    public func value(forKey key: String, computedBy input: J.Input) async throws -> J.Output {
        let now = queue.now
        let job = try options.newJob(J.self, input: try queue.files.storedJSON(input), now: now, traceContext: queue.callersTraceContext)
        let lookup = try await queue.store.cachedValue(
            namespace: namespace, key: key, job: job, maxFailures: maxFailures, now: now)
        switch lookup {
        case .complete(let output):
            return try queue.files.resolvedValue(J.Output.self, from: output)
        case .computing(let id, let enqueued):
            if enqueued {
                queue.workArrived()
                queue.jobChanges.signal()
            }
            return try await queue.handle(J.self, id: id).result()
        case .failed(let error, let failures):
            throw DurableQueueError(
                .jobFailed,
                "key '\(key)' of '\(namespace)' failed \(failures) time(s) (\(error?.description ?? "no error recorded")); "
                    + "reset it to compute it again")
        }
    }

    /// The current state of `key`.
    public func state(forKey key: String) async throws -> CachedState<J.Output> {
        try state(of: try await queue.store.cacheEntry(namespace: namespace, key: key))
    }

    /// Every state of `key` as it changes, starting with the current one; it never ends by itself
    /// (a key can be reset and computed again): stop iterating when done. Iterate from any actor,
    /// the main actor of a UI included.
    ///
    /// Changes made in this process are seen at once, those of other processes within the queue's
    /// poll interval.
    public func states(forKey key: String) -> AsyncThrowingStream<CachedState<J.Output>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: CachedState<J.Output>.self)
        let task = Task { [queue, namespace] in
            do {
                var last: CacheEntryRecord?? = .none
                while !Task.isCancelled {
                    let seen = queue.jobChanges.generation
                    let entry = try await queue.store.cacheEntry(namespace: namespace, key: key)
                    if last != .some(entry) {
                        continuation.yield(try state(of: entry))
                        last = .some(entry)
                    }
                    await queue.waitForChange(after: seen, deadline: nil)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Forgets `key`, so that the next request computes it anew. A computation in progress runs on,
    /// but its result is not stored.
    public func reset(_ key: String) async throws {
        try await queue.store.resetCache(namespace: namespace, key: key, now: queue.now)
        queue.jobChanges.signal()
    }

    /// Forgets every key of this cache's namespace.
    public func resetAll() async throws {
        try await queue.store.resetCache(namespace: namespace, key: nil, now: queue.now)
        queue.jobChanges.signal()
    }

    private func state(of entry: CacheEntryRecord?) throws -> CachedState<J.Output> {
        guard let entry else { return .absent }
        switch entry.state {
        case .inProgress:
            return .inProgress
        case .complete:
            return .complete(try queue.files.resolvedValue(J.Output.self, from: entry.output ?? "null"))
        case .failed:
            return .failed(entry.error, failures: entry.failures)
        }
    }
}

extension JobQueue {
    /// A cache of values computed by jobs of type `J`, stored in this queue's file.
    ///
    /// - Parameters:
    ///   - type: The job type that computes a key's value from its input.
    ///   - namespace: Where its keys live; default the job type's name. Caches with the same
    ///     namespace share keys.
    ///   - maxFailures: How many failed computations a key allows before it stays failed until reset;
    ///     default 3, nil for unlimited.
    ///   - options: How computing jobs are enqueued. A unique key is not allowed (the cache key is one).
    public func cache<J: Job>(
        for type: J.Type, namespace: String? = nil, maxFailures: Int? = 3, options: EnqueueOptions = EnqueueOptions()
    ) -> ResultCache<J> {
        ResultCache(namespace: namespace ?? J.name, maxFailures: maxFailures, options: options, queue: self)
    }

    /// Forgets every key of every cache in the file (or, given a namespace, of that namespace).
    public func resetCaches(namespace: String? = nil) async throws {
        try await store.resetCache(namespace: namespace, key: nil, now: now)
        jobChanges.signal()
    }
}
