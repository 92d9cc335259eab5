import Foundation

/// A durable step a job recorded (see ``JobContext/step(_:formerly:_:)->_``): its name, the attempt that ran its
/// body, when, and its output.
public struct JobStep: Sendable, Hashable {
    /// The step's name.
    public let name: String
    /// The attempt that ran the step's body.
    public let attempt: Int
    /// When the step's output was committed.
    public let recordedAt: Date
    /// The output as JSON text.
    public let outputJSON: String
    /// Where stored paths in the output resolve.
    let files: FileLocations

    /// The output as `T` (the type the step's body returned), its stored paths resolved.
    ///
    /// - Throws: A decoding error when it is not a `T`.
    public func output<T: Decodable>(as type: T.Type) throws -> T {
        try files.resolvedValue(T.self, from: outputJSON)
    }

    public static func == (lhs: JobStep, rhs: JobStep) -> Bool {
        lhs.name == rhs.name && lhs.attempt == rhs.attempt && lhs.recordedAt == rhs.recordedAt && lhs.outputJSON == rhs.outputJSON
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(attempt)
        hasher.combine(outputJSON)
    }
}

extension JobHandle {
    /// The durable steps the job recorded so far, in the order they were recorded.
    ///
    /// - Throws: A storage error.
    public func steps() async throws -> [JobStep] {
        try await queue.store.steps(of: id).map {
            JobStep(
                name: $0.name, attempt: $0.attempt, recordedAt: Date(millisecondsSince1970: $0.recordedAt), outputJSON: $0.output,
                files: queue.files)
        }
    }
}
