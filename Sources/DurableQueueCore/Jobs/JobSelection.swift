import Foundation

/// Which jobs a bulk action (``JobQueue/Jobs/apply(_:to:dryRun:)``) takes: every condition set must
/// hold; a condition left nil matches every job.
public struct JobSelection: Sendable, Hashable, CustomStringConvertible {
    /// Only jobs in these states (the action then takes those of them it applies to).
    public var states: Set<JobState>?
    /// Only jobs of these queues.
    public var queues: Set<String>?
    /// Only jobs of these kinds (``Job/name``).
    public var kinds: Set<String>?
    /// Only jobs with this tag.
    public var tag: String?
    /// Only jobs created at or after this time.
    public var createdFrom: Date?
    /// Only jobs created before this time.
    public var createdBefore: Date?
    /// Only jobs whose last error's type or message contains this text (ignoring ASCII case).
    public var errorContains: String?

    /// Creates a selection; see each property.
    public init(
        states: Set<JobState>? = nil, queues: Set<String>? = nil, kinds: Set<String>? = nil, tag: String? = nil,
        createdFrom: Date? = nil, createdBefore: Date? = nil, errorContains: String? = nil
    ) {
        self.states = states
        self.queues = queues
        self.kinds = kinds
        self.tag = tag
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.errorContains = errorContains
    }

    /// The conditions set, in words, as the history of each job changed quotes them:
    /// `state failed, queue mail, created from 2026-11-27T09:00:00.000Z, error contains "timeout"`;
    /// `every job` when none is. Times are ISO 8601 in UTC, as the SQL views show them.
    public var description: String {
        var parts: [String] = []
        if let states { parts.append("state " + states.map(\.rawValue).sorted().joined(separator: "|")) }
        if let queues { parts.append("queue " + queues.sorted().joined(separator: "|")) }
        if let kinds { parts.append("kind " + kinds.sorted().joined(separator: "|")) }
        if let tag { parts.append("tag \(tag)") }
        if let createdFrom { parts.append("created from \(Self.timestamp(createdFrom))") }
        if let createdBefore { parts.append("created before \(Self.timestamp(createdBefore))") }
        if let errorContains { parts.append("error contains \"\(errorContains)\"") }
        return parts.isEmpty ? "every job" : parts.joined(separator: ", ")
    }

    /// `date` in ISO 8601, UTC, with milliseconds.
    private static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// The store's filter for the jobs of this selection that `action` applies to, oldest first.
    func filter(for action: BulkAction, limit: Int) -> JobFilter {
        var filter = JobFilter(
            states: action.states(among: states), queues: queues, kinds: kinds, tag: tag, limit: limit, order: .oldestFirst)
        filter.errorText = errorContains
        filter.createdFrom = createdFrom?.millisecondsSince1970
        filter.createdBefore = createdBefore?.millisecondsSince1970
        return filter
    }
}
