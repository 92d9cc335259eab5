extension JobQueue {
    /// Enqueues a sequence or concurrent group (see ``Composition``) with every job in it, in one
    /// transaction, and starts it. Returns after the commit.
    ///
    /// - Throws: `invalidArgument` (nothing changed): the outermost part is a single job, two
    ///   children of a group share a name, a job has a unique key, or an input does not encode.
    public func enqueue(_ composition: Composition) async throws -> GroupHandle {
        try await enqueue(composition, inheriting: nil)
    }

    /// ``enqueue(_:)``, with `inherited` as the priority of jobs that have none of their own.
    func enqueue(_ composition: Composition, inheriting inherited: Priority?) async throws -> GroupHandle {
        let now = now
        let id = try await store.enqueue(composition: try composition.node(now, inherited, callersTraceContext, files), now: now)
        workArrived()
        jobChanges.signal()
        return GroupHandle(id: id, queue: self)
    }

    /// A handle on an existing sequence or group (enqueued earlier, perhaps by another process).
    public func handle(group id: GroupID) -> GroupHandle {
        GroupHandle(id: id, queue: self)
    }

    /// Waits until group `id` has ended (or `deadline`, in ms since 1970, passes) and returns its result.
    func waitUntilGroupFinished(_ id: GroupID, deadline: Int64?) async throws -> GroupResult {
        while true {
            let seen = jobChanges.generation
            let state = try await store.groupState(id)
            if state.isTerminal { return try await store.groupResult(id).resolvingPaths(with: files) }
            if let deadline, now >= deadline {
                throw DurableQueueError(.timedOut, "group \(id) did not finish in time (it is \(state.rawValue))")
            }
            await waitForChange(after: seen, deadline: deadline)
            try Task.checkCancellation()
        }
    }
}
