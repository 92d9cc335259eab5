/// Which stored versions of a job type a registration runs, and how their inputs become its own:
/// the one rule of versions (see ``Job/version`` and ``Job/inputMigrations``).
package struct JobVersions: Sendable {
    /// The registration's own version.
    package let version: Int
    /// The versions it runs: its own, and every earlier one from which its steps reach it without a gap.
    package let runs: ClosedRange<Int>
    /// The steps, by the version each reads.
    private let steps: [Int: InputMigration]

    /// The versions of a type at `version` with `migrations`. A version below 1, a step that does not
    /// read an earlier version, or two steps from one version is a programming error, found at
    /// registration.
    package init(kind: String, version: Int, migrations: [InputMigration]) {
        precondition(version >= 1, "job type '\(kind)': version \(version) is below 1")
        var steps: [Int: InputMigration] = [:]
        for step in migrations {
            precondition(
                (1..<version).contains(step.fromVersion),
                "job type '\(kind)' at version \(version): an input migration from version \(step.fromVersion) reads no earlier version")
            precondition(steps.updateValue(step, forKey: step.fromVersion) == nil, "job type '\(kind)': two input migrations from version \(step.fromVersion)")
        }
        var lowest = version
        while lowest > 1, steps[lowest - 1] != nil { lowest -= 1 }
        self.version = version
        self.steps = steps
        self.runs = lowest...version
    }

    /// `input`, stored by version `stored`, as this version's input: each step from `stored` on, in order.
    ///
    /// - Throws: ``StoredVersionError`` when `stored` is not among the versions this registration
    ///   runs; whatever a step throws.
    package func migrate(_ input: String, from stored: Int) throws -> String {
        guard runs.contains(stored) else { throw StoredVersionError(stored: stored, runs: runs) }
        var input = input
        for from in stored..<version {
            guard let step = steps[from] else { throw StoredVersionError(stored: stored, runs: runs) }
            input = try step.migrate(input)
        }
        return input
    }
}

/// A job stored by a version its worker does not run (claims take only runnable versions: a job
/// reaching a handler this way is a defect, reported rather than run on a guess).
package struct StoredVersionError: Error, CustomStringConvertible {
    /// The job's version.
    package let stored: Int
    /// The versions the worker runs.
    package let runs: ClosedRange<Int>

    package var description: String {
        "stored by version \(stored); this worker runs versions \(runs.lowerBound)–\(runs.upperBound)"
    }
}

extension DurableQueueError {
    /// The error of reading `subject` (an output) that version `stored` of a job type wrote and
    /// version `reader` of it cannot decode: both versions named, and why it did not decode.
    static func outputVersionMismatch(
        _ subject: String, stored: KindVersion, reader: Int, cause: any Error, jobID: JobID, queue: String? = nil
    ) -> DurableQueueError {
        DurableQueueError(
            .versionMismatch,
            "\(subject) was stored by version \(stored.version) of '\(stored.kind)'; version \(reader) cannot read it: \(cause)",
            jobID: jobID, queue: queue)
    }
}
