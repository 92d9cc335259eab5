import Foundation

/// Where an inserted job sits in a group.
package struct GroupPlacement: Sendable {
    package var group: GroupID
    package var position: Int
    package var name: String?
    package var takesPreviousOutput: Bool

    package init(group: GroupID, position: Int, name: String?, takesPreviousOutput: Bool) {
        self.group = group
        self.position = position
        self.name = name
        self.takesPreviousOutput = takesPreviousOutput
    }
}

/// One child of a group, as the group's bookkeeping sees it.
package struct GroupChild: Sendable, Hashable {
    package var position: Int
    package var job: JobID?
    package var group: GroupID?
    package var name: String?
    package var state: JobState
    package var output: String?

    package init(position: Int, job: JobID?, group: GroupID?, name: String?, state: JobState, output: String?) {
        self.position = position
        self.job = job
        self.group = group
        self.name = name
        self.state = state
        self.output = output
    }

    /// Started and not yet ended: a job scheduled, pending or running, or a group running.
    package var isActive: Bool { [.scheduled, .pending, .running].contains(state) }

    /// The children's outputs as one JSON object, keyed by name (or position when unnamed).
    package static func outputObject(_ children: [GroupChild]) throws -> String {
        let members = try children.map { child in
            let key = try JobCodec.encode(child.name ?? String(child.position))
            return "\(key):\(child.output ?? "null")"
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}

/// An outermost sequence or group as a listing shows it: what it is, where it stands, how far along.
package struct GroupSummary: Sendable, Hashable {
    package var id: GroupID
    /// `sequence` or `concurrent`.
    package var kind: String
    package var name: String?
    package var state: JobState
    /// Its direct children (jobs and nested groups).
    package var children: Int
    /// How many of them succeeded.
    package var succeeded: Int
    package var createdAt: Int64
    package var finishedAt: Int64?
    /// Why it did not succeed, once it ended so.
    package var error: String?

    package init(
        id: GroupID, kind: String, name: String?, state: JobState, children: Int, succeeded: Int, createdAt: Int64,
        finishedAt: Int64?, error: String?
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.state = state
        self.children = children
        self.succeeded = succeeded
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.error = error
    }
}
