import Foundation
import Synchronization

/// Runs one registered job type on stored JSON input, hiding its generic types from the engine.
protocol JobRunner: Sendable {
    /// Decodes `input`, runs the handler, and encodes its output.
    func run(input: String, context: JobContext) async throws -> String
    /// The job type's ``Job/shouldRetry(after:)``; errors of decoding the input never retry.
    func shouldRetry(after error: any Error) -> Bool
    /// The job type's ``Job/needsNetwork``.
    var needsNetwork: Bool { get }
    /// The job type's ``Job/networkRequirement``.
    var networkRequirement: NetworkRequirement { get }
}

/// A ``JobRunner`` over one concrete ``Job``.
struct TypedJobRunner<J: Job>: JobRunner {
    let job: J

    func run(input: String, context: JobContext) async throws -> String {
        let decoded: J.Input
        do {
            decoded = try JobCodec.decode(J.Input.self, from: input)
        } catch {
            throw InputDecodingError(kind: J.name, underlying: String(describing: error))
        }
        let files = context.jobQueue.files
        let output = try await job.run(try files.resolved(decoded), context: context)
        return try files.storedJSON(output)
    }

    func shouldRetry(after error: any Error) -> Bool {
        error is InputDecodingError ? false : job.shouldRetry(after: error)
    }

    var needsNetwork: Bool { J.needsNetwork || J.networkRequirement != .notRequired }
    var networkRequirement: NetworkRequirement { J.networkRequirement }
}

/// A stored input that the registered type cannot decode: retrying cannot help.
struct InputDecodingError: Error, CustomStringConvertible {
    let kind: String
    let underlying: String
    var description: String { "the stored input does not decode as '\(kind)' input: \(underlying)" }
}

/// The job types this process can run, by name.
final class JobRegistry: Sendable {
    private let runners = Mutex<[String: any JobRunner]>([:])

    /// Registers `job` under `J.name`. Registering a name twice is a programming error.
    func register<J: Job>(_ job: J) {
        precondition(!J.name.isEmpty, "a job type's name must not be empty")
        let added = runners.withLock { runners in
            runners.updateValue(TypedJobRunner(job: job), forKey: J.name) == nil
        }
        precondition(added, "a job type named '\(J.name)' is already registered")
    }

    /// The runner of kind `name`, if registered.
    func runner(for name: String) -> (any JobRunner)? {
        runners.withLock { $0[name] }
    }

    /// Every registered name.
    var kinds: Set<String> { runners.withLock { Set($0.keys) } }

    /// The registered names of job types whose network requirement `status` meets.
    func kinds(meeting status: NetworkStatus) -> Set<String> {
        runners.withLock { Set($0.filter { status.meets($0.value.networkRequirement) }.keys) }
    }

    /// The registered names of job types that need the network (``Job/needsNetwork``).
    var networkKinds: Set<String> { runners.withLock { Set($0.filter { $0.value.needsNetwork }.keys) } }
}
