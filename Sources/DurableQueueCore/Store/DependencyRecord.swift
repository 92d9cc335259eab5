/// One dependency of a job as the store keeps it (`job_dependencies`).
package struct DependencyRecord: Sendable, Hashable {
    package var name: String
    package var job: JobID
    package var onFailure: Dependency.OnFailure
    /// How the job depended on ended; nil while it has not.
    package var outcome: JobState?
    /// Its output (JSON text), if it succeeded.
    package var output: String?
    /// Its error, if it failed.
    package var error: JobFailure?
    /// The kind and version of the job depended on (``Job/version``); nil once it was deleted.
    package var parent: KindVersion?

    package init(
        name: String, job: JobID, onFailure: Dependency.OnFailure, outcome: JobState?, output: String?, error: JobFailure?,
        parent: KindVersion? = nil
    ) {
        self.name = name
        self.job = job
        self.onFailure = onFailure
        self.outcome = outcome
        self.output = output
        self.error = error
        self.parent = parent
    }
}
