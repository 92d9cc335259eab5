import Foundation
import Synchronization

/// Runs one registered job type on stored JSON input, hiding its generic types from the engine.
protocol JobRunner: Sendable {
    /// Brings `input`, stored by `version`, to the registered version, decodes it, runs the handler,
    /// and encodes its output.
    ///
    /// - Throws: ``InputDecodingError`` when the input does not migrate or decode (the engine parks
    ///   the job); whatever the handler throws.
    func run(input: String, version: Int, context: JobContext) async throws -> String
    /// The job type's ``Job/shouldRetry(after:)``.
    func shouldRetry(after error: any Error) -> Bool
    /// The versions of the job type this registration runs.
    var versions: ClosedRange<Int> { get }
    /// The job type's ``Job/needsNetwork``.
    var needsNetwork: Bool { get }
    /// The job type's ``Job/networkRequirement``.
    var networkRequirement: NetworkRequirement { get }
}

/// A ``JobRunner`` over one concrete ``Job``.
struct TypedJobRunner<J: Job>: JobRunner {
    let job: J
    let jobVersions: JobVersions

    init(job: J) {
        self.job = job
        jobVersions = JobVersions(kind: J.name, version: J.version, migrations: J.inputMigrations)
    }

    func run(input: String, version: Int, context: JobContext) async throws -> String {
        let decoded: J.Input
        do {
            let current = version == J.version ? input : try jobVersions.migrate(input, from: version)
            decoded = try JobCodec.decode(J.Input.self, from: current)
        } catch {
            throw InputDecodingError(kind: J.name, stored: version, reading: J.version, underlying: String(describing: error))
        }
        let files = context.jobQueue.files
        let output = try await job.run(try files.resolved(decoded), context: context)
        return try files.storedJSON(output)
    }

    func shouldRetry(after error: any Error) -> Bool {
        job.shouldRetry(after: error)
    }

    var versions: ClosedRange<Int> { jobVersions.runs }

    var needsNetwork: Bool { J.needsNetwork || J.networkRequirement != .notRequired }
    var networkRequirement: NetworkRequirement { J.networkRequirement }
}

/// A stored input that the registered type cannot read, through its input migrations or not:
/// retrying cannot help, so the job is parked (``JobState/parked``) until code that reads it runs.
struct InputDecodingError: Error, CustomStringConvertible {
    /// The job's kind.
    let kind: String
    /// The version that stored the input.
    let stored: Int
    /// The version of the code that tried to read it.
    let reading: Int
    /// What the decoder or a migration said.
    let underlying: String

    var description: String {
        let versions = stored == reading ? "version \(stored)" : "version \(stored), read by version \(reading)"
        return "the stored input (\(versions)) does not decode as '\(kind)' input: \(underlying)"
    }
}

/// The job types this process can run, by name.
final class JobRegistry: Sendable {
    /// The runners, and the kinds they run (kept as they are registered: every claim asks).
    private struct Registered {
        var runners: [String: any JobRunner] = [:]
        var runnable = RunnableKinds(versions: [:])
    }

    private let registered = Mutex(Registered())

    /// Registers `job` under `J.name`. Registering a name twice is a programming error.
    func register<J: Job>(_ job: J) {
        precondition(!J.name.isEmpty, "a job type's name must not be empty")
        let runner = TypedJobRunner(job: job)
        let added = registered.withLock { registered in
            guard registered.runners.updateValue(runner, forKey: J.name) == nil else { return false }
            registered.runnable.versions[J.name] = runner.versions
            return true
        }
        precondition(added, "a job type named '\(J.name)' is already registered")
    }

    /// The runner of kind `name`, if registered.
    func runner(for name: String) -> (any JobRunner)? {
        registered.withLock { $0.runners[name] }
    }

    /// Every registered kind, with the versions of it this process runs: what a claim takes.
    var runnable: RunnableKinds { registered.withLock { $0.runnable } }

    /// The registered kinds, with their versions, of job types whose network requirement `status` meets.
    func runnable(meeting status: NetworkStatus) -> RunnableKinds {
        registered.withLock { registered in
            RunnableKinds(versions: registered.runners.filter { status.meets($0.value.networkRequirement) }.mapValues(\.versions))
        }
    }

    /// The registered names of job types that need the network (``Job/needsNetwork``).
    var networkKinds: Set<String> { registered.withLock { Set($0.runners.filter { $0.value.needsNetwork }.keys) } }
}
