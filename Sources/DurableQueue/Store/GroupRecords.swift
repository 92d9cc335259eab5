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
package struct GroupChild: Sendable {
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
