import Synchronization

extension JobEngine: AttemptRefiller {
    /// What this process claims with `room` reserved at `now`: the kinds registered here, its
    /// queues (every queue, or ``JobQueue/Configuration/queues``), from the next queue in rotation,
    /// never a job with an attempt still running here (one whose lease was lost keeps running until
    /// its handler returns).
    func claimRequest(room: Int, now: Int64) -> ClaimRequest {
        var request = ClaimRequest(
            owner: configuration.workerID, leaseDuration: configuration.leaseDuration.milliseconds, now: now, room: room,
            kinds: claimableKinds, queues: configuration.queues,
            rotation: rotation.wrappingAdd(1, ordering: .relaxed).oldValue, excluding: state.runningJobs)
        request.excludedQueues = gatedQueues
        return request
    }

    /// The queues whose ``JobQueue/Configuration/queueNetworkRequirements`` the network
    /// conditions do not meet now (none without conditions).
    var gatedQueues: Set<String> {
        guard let network = configuration.network, !configuration.queueNetworkRequirements.isEmpty else { return [] }
        let status = network.status
        return Set(configuration.queueNetworkRequirements.filter { !status.meets($0.value) }.keys)
    }

    /// The registered kinds, at the versions this process runs, a claim may take now: those whose
    /// network requirement the ``JobQueue/Configuration/network`` conditions meet (every one
    /// without conditions).
    var claimableKinds: RunnableKinds {
        guard let network = configuration.network else { return registry.runnable }
        return registry.runnable(meeting: network.status)
    }

    /// A claim in the transaction that records `freed` endings: their places and any free room,
    /// reserved now; nil when there is none (a full engine, or shutdown has begun).
    func refillRequest(freeing freed: Int, now: Int64) -> ClaimRequest? {
        let room = state.reserveRoom(maximum: configuration.maxConcurrentJobs, freeing: freed)
        return room > 0 ? claimRequest(room: room, now: now) : nil
    }

    /// Frees the room of attempts whose endings were committed (their tasks are only returning
    /// now), and admits the jobs claimed along with them; wakes the dispatcher when the machine
    /// says that the returning tasks will not start them all (see ``EngineMachine/admit(_:reserved:ending:)``).
    func committed(_ ended: [AttemptID], claimed jobs: [ClaimedJob], for request: ClaimRequest?) {
        if state.admit(jobs, reserved: request?.room ?? 0, ending: ended) { wake.signal() }
    }

    /// The transaction that recorded endings failed: its claim's room is free again.
    func abandon(_ request: ClaimRequest) {
        state.release(reserved: request.room)
    }
}
