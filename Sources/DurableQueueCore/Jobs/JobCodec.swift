import Foundation

/// How job inputs and outputs (and the settings stored with a job) become the JSON text a store
/// keeps, and back: one place, so that every store holds the same text.
package enum JobCodec {
    /// `value` as JSON text.
    ///
    /// - Throws: `invalidArgument` when the value cannot be encoded (nothing is stored).
    package static func encode(_ value: some Encodable) throws -> String {
        do {
            return try JSONTextEncoder.encode(value)
        } catch {
            throw DurableQueueError(.invalidArgument, "the value does not encode as JSON: \(error)")
        }
    }

    /// The `T` in JSON `text`.
    package static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONTextDecoder.decode(type, from: text)
    }
}
