import Foundation

/// A finished (or running) sequence or group: its state and each child's state and result, nested
/// groups included.
///
/// For example:
/// ```swift
/// let result = try await handle.result()
/// let archive: String = try result.output("zip")
/// let small: Data = try result.group("thumbnails")!.output("small")
/// ```
public struct GroupResult: Sendable, Hashable {
    /// One child: a job or a nested group.
    public struct Child: Sendable, Hashable {
        /// What the child is, with its result.
        public enum Content: Sendable, Hashable {
            /// A job, with its last error, if any (its output: ``GroupResult/output(_:as:)``).
            case job(JobID, error: JobFailure?)
            /// A nested sequence or group.
            case group(GroupResult)
        }

        /// The name given when the child was added, if any.
        public let name: String?
        /// Its place in the group, from 0.
        public let position: Int
        /// Its state (`blocked` until its turn).
        public let state: JobState
        /// The job or group, with its result.
        public let content: Content
        /// A job's output as stored (JSON text), once it succeeded; decoded by ``GroupResult/output(_:as:)``.
        package let output: String?

        package init(name: String?, position: Int, state: JobState, content: Content, output: String?) {
            self.name = name
            self.position = position
            self.state = state
            self.content = content
            self.output = output
        }
    }

    /// The group's id.
    public let id: GroupID
    /// The group's name within its parent, if any.
    public let name: String?
    /// `running` until it ends; then `succeeded` (every child did), `failed` or `cancelled`.
    public let state: JobState
    /// Why it did not succeed (for example "step 'zip' failed"), once it ended so.
    public let reason: String?
    /// Once it succeeded: the children's outputs as one JSON object keyed by name (or position when
    /// unnamed), as stored in `groups.output`; decoded by ``output(as:)``.
    package let output: String?
    /// The children, in order.
    public let children: [Child]
    /// Where outputs' stored paths are resolved (see ``StoresFilePaths``); set by the handle that
    /// read the result.
    private var paths = PathResolution()

    /// Once the group succeeded, its children's outputs as one object keyed by name (or position when
    /// unnamed), decoded as `T` (a struct with a property per child, or a dictionary).
    ///
    /// - Throws: `jobFailed` or `cancelled` when the group did not succeed; a `DecodingError` when
    ///   the outputs are not a `T`.
    public func output<T: Decodable>(as type: T.Type = T.self) throws -> T {
        guard state == .succeeded, let output else {
            throw DurableQueueError(state == .cancelled ? .cancelled : .jobFailed, "group \(id) is \(state.rawValue), without output")
        }
        return try paths.value(T.self, from: output)
    }

    /// The child named `name`, if any.
    public subscript(name: String) -> Child? {
        children.first { $0.name == name }
    }

    /// The nested group named `name`, if there is one.
    public func group(_ name: String) -> GroupResult? {
        guard case .group(var group) = self[name]?.content else { return nil }
        group.paths = paths
        return group
    }

    /// The output of the child named `name`, decoded as `T`. For a nested group, its output is an
    /// object of its children's outputs keyed by name (or position when unnamed).
    ///
    /// - Throws: `invalidArgument` when no child has that name; `jobFailed` or `cancelled` when the
    ///   child did not succeed; a `DecodingError` when the output is not a `T`.
    public func output<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let child = self[name] else {
            throw DurableQueueError(.invalidArgument, "group \(id) has no child named '\(name)'")
        }
        switch (child.state, child.content) {
        case (.succeeded, .job) where child.output != nil:
            return try paths.value(T.self, from: child.output ?? "null")
        case (.succeeded, .group(let group)):
            return try paths.value(T.self, from: group.output ?? "null")
        case (.cancelled, _):
            throw DurableQueueError(.cancelled, "child '\(name)' of group \(id) was cancelled")
        default:
            throw DurableQueueError(.jobFailed, "child '\(name)' of group \(id) is \(child.state.rawValue), without output")
        }
    }

    /// This result, its outputs' stored paths resolved by `files` when read.
    func resolvingPaths(with files: FileLocations) -> GroupResult {
        var result = self
        result.paths = PathResolution(files)
        return result
    }

    package init(id: GroupID, name: String?, state: JobState, reason: String?, output: String?, children: [Child]) {
        self.id = id
        self.name = name
        self.state = state
        self.reason = reason
        self.output = output
        self.children = children
    }
}

/// How a ``GroupResult`` resolves the stored paths of its outputs: not part of its value (two
/// results are equal whoever reads them).
private struct PathResolution: Sendable, Hashable {
    private let files: FileLocations?

    init(_ files: FileLocations? = nil) {
        self.files = files
    }

    /// The value that `json` encodes, its stored paths resolved where a queue read it.
    func value<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        try files?.resolvedValue(T.self, from: json) ?? JobCodec.decode(T.self, from: json)
    }

    static func == (lhs: PathResolution, rhs: PathResolution) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
