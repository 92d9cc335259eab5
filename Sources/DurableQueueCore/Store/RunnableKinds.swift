/// A job kind at one version of its input (``Job/version``).
package struct KindVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var kind: String
    package var version: Int

    package init(kind: String, version: Int) {
        self.kind = kind
        self.version = version
    }

    package static func < (lhs: KindVersion, rhs: KindVersion) -> Bool {
        (lhs.kind, lhs.version) < (rhs.kind, rhs.version)
    }

    /// `send-email v3`.
    package var description: String { "\(kind) v\(version)" }
}

/// A job kind at one version, on one queue: how waiting jobs are counted (``JobStoreReader/waitingJobsByKind()``).
package struct QueuedKindVersion: Sendable, Hashable, Comparable {
    package var queue: String
    package var job: KindVersion

    package init(queue: String, kind: String, version: Int) {
        self.queue = queue
        self.job = KindVersion(kind: kind, version: version)
    }

    package static func < (lhs: QueuedKindVersion, rhs: QueuedKindVersion) -> Bool {
        (lhs.job, lhs.queue) < (rhs.job, rhs.queue)
    }
}

/// The job kinds a worker runs, each with the versions of it that it runs (``JobVersions/runs``):
/// what a claim takes.
package struct RunnableKinds: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// Each kind's versions.
    package var versions: [String: ClosedRange<Int>]

    /// The kinds `versions` names, each with its versions.
    package init(versions: [String: ClosedRange<Int>]) {
        self.versions = versions
    }

    /// `names`, each at version 1 only.
    package init(_ names: some Sequence<String>) {
        versions = Dictionary(names.map { ($0, 1...1) }, uniquingKeysWith: { first, _ in first })
    }

    package init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// Whether a job of `kind` stored by `version` is one the worker runs: the rule both stores
    /// apply to the rows a claim reads.
    @inline(__always)
    package func runs(kind: String, version: Int) -> Bool {
        versions[kind]?.contains(version) ?? false
    }

    /// Of `waiting` (jobs counted by kind and version), those the worker does not run.
    package func notRun(among waiting: [KindVersion: Int]) -> [KindVersion: Int] {
        waiting.filter { !runs(kind: $0.key.kind, version: $0.key.version) }
    }

    /// The kinds, whatever their versions.
    package var names: Set<String> { Set(versions.keys) }

    /// Whether the worker runs no kind.
    package var isEmpty: Bool { versions.isEmpty }

    /// The kinds in name order, with the lowest and the highest version of each run: aligned
    /// columns for a store that passes them as arrays.
    package var columns: (names: [String], lowest: [Int], highest: [Int]) {
        let sorted = versions.sorted { $0.key < $1.key }
        return (sorted.map(\.key), sorted.map(\.value.lowerBound), sorted.map(\.value.upperBound))
    }

    /// Only the kinds in `names`, with their versions.
    package func filter(_ isIncluded: (String) -> Bool) -> RunnableKinds {
        RunnableKinds(versions: versions.filter { isIncluded($0.key) })
    }
}
