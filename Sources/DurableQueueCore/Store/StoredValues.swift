extension JobState {
    /// A state as a store keeps it. Text the store's CHECK constraint would refuse means a newer or
    /// damaged database.
    ///
    /// - Throws: `corrupt`.
    package init(stored text: String) throws {
        guard let state = JobState(rawValue: text) else {
            throw DurableQueueError(.corrupt, "unknown job state '\(text)' in the jobs table")
        }
        self = state
    }
}

extension DurableQueueError {
    /// No job has id `id` (any store says it so).
    package static func jobNotFound(_ id: JobID) -> Self {
        DurableQueueError(.jobNotFound, "no job has id \(id)", jobID: id)
    }

    /// No sequence or group has id `id`.
    package static func groupNotFound(_ id: GroupID) -> Self {
        DurableQueueError(.groupNotFound, "no sequence or group has id \(id)")
    }
}
