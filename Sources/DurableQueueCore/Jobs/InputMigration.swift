/// One step of a job type's ``Job/inputMigrations``: reads the input stored by version ``fromVersion`` and
/// returns the input of version `fromVersion + 1`.
///
/// For example, a type whose version 2 split `name` into two fields:
/// ```swift
/// struct Greet: Job {
///     struct Input: Codable, Sendable { var first: String; var last: String }
///     struct InputV1: Decodable { var name: String }
///     static let name = "greet"
///     static let version = 2
///     static let inputMigrations = [
///         InputMigration.from(1, as: InputV1.self) { old in
///             let parts = old.name.split(separator: " ", maxSplits: 1)
///             return Input(first: String(parts.first ?? ""), last: parts.count > 1 ? String(parts[1]) : "")
///         }
///     ]
///     func run(_ input: Input, context: JobContext) async throws -> String { "hello \(input.first)" }
/// }
/// ```
public struct InputMigration: Sendable {
    /// The version whose stored input this step reads.
    public let fromVersion: Int
    /// The input of version ``fromVersion`` as JSON text, to the input of the next version as JSON text.
    let migrate: @Sendable (String) throws -> String

    /// A step that decodes the input of version `version` as `Old` and stores what `transform`
    /// returns as the input of version `version + 1`.
    ///
    /// - Parameters:
    ///   - version: The version whose input the step reads, from 1.
    ///   - old: The type version `version` stored (a copy of that version's `Input` kept for this step).
    ///   - transform: Makes the next version's input; a throw parks the job (see <doc:UpgradingYourJobs>).
    public static func from<Old: Decodable & Sendable, New: Encodable & Sendable>(
        _ version: Int, as old: Old.Type, _ transform: @escaping @Sendable (Old) throws -> New
    ) -> InputMigration {
        InputMigration(fromVersion: version) { text in
            try JobCodec.encode(try transform(try JobCodec.decode(Old.self, from: text)))
        }
    }
}
