/// A job another job waits for (``EnqueueOptions/dependsOn``): the dependent stays `blocked` until
/// every job it depends on has ended, then starts, and reads their outputs by name
/// (``JobContext/dependencyOutput(_:as:)``). The jobs may be on any queues.
public struct Dependency: Sendable, Hashable {
    /// What a dependency that fails (or is cancelled) does to the job that waits for it.
    public enum OnFailure: String, Sendable, Hashable, CaseIterable {
        /// The dependent is cancelled (and so are the jobs that wait for it, in turn): the default.
        case cancel
        /// The dependent runs anyway once its dependencies have ended; it reads this one's error
        /// (``JobContext/dependencyFailure(_:)``).
        case run
        /// The dependent runs once its dependencies have ended as if this one had not failed: it
        /// reads neither an output nor an error for it.
        case ignore
    }

    /// The name the dependent reads this dependency's output by; unique among its dependencies.
    public var name: String
    /// The job waited for.
    public var job: JobID
    /// What its failure does to the dependent.
    public var onFailure: OnFailure

    /// A dependency named `name` on job `job`.
    public init(_ name: String, on job: JobID, onFailure: OnFailure = .cancel) {
        self.name = name
        self.job = job
        self.onFailure = onFailure
    }

    /// A dependency named `name` on the job of `handle`.
    public init<J: Job>(_ name: String, on handle: JobHandle<J>, onFailure: OnFailure = .cancel) {
        self.init(name, on: handle.id, onFailure: onFailure)
    }
}
