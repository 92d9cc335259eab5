import Foundation

/// Encodes values as compact JSON text that Foundation's `JSONDecoder` (default strategies) reads
/// back to the same values: what `JSONEncoder` with its default strategies writes, without its
/// cost (its type checks on every value were a sixth of an enqueue's instructions).
///
/// As `JSONEncoder` does by default: `Data` as Base64, `URL` as its absolute string, `Decimal` as
/// a number, `Date` as its own encoding (seconds since 2001), a non-finite number refused.
/// Unlike it: `/` is not escaped and object members keep the order they were encoded in, so that
/// the stored text reads as written in `sqlite3`.
package enum JSONTextEncoder {
    /// `value` as JSON text.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, a NaN decimal, or a value
    ///   that encodes nothing at all.
    package static func encode<T: Encodable>(_ value: T) throws -> String {
        let tree = try JSONTreeEncoder.tree(for: value, at: [], isTopLevel: true)
        // An object of leaves (most inputs and outputs) is copied once, into the string.
        if case .object(let box) = tree, let text = box.contents.finishedText(opening: "{", closing: "}") { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        tree.write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The `Encoder` behind ``JSONTextEncoder``: one per value that has its own `encode(to:)`.
final class JSONTreeEncoder: Encoder, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What the value encoded so far; nil until it asks for a container and puts something in.
    private(set) var tree: JSONTree?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The JSON of `value` at `path` (built only if an encoder or an error needs it).
    static func tree<T: Encodable>(for value: T, at path: @autoclosure () -> [any CodingKey], isTopLevel: Bool = false) throws -> JSONTree {
        // The common leaves first, checked by type identity (a comparison, where a cast is a
        // runtime call), then the types JSONEncoder writes otherwise than they encode themselves.
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .literal(String(value as! Int)) }
        if T.self == Int64.self { return .literal(String(value as! Int64)) }
        if T.self == Bool.self { return .literal((value as! Bool) ? "true" : "false") }
        if T.self == Double.self { return try number(value as! Double, at: path()) }
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self {
            let decimal = value as! Decimal
            guard !decimal.isNaN else { throw invalid(value, at: path(), "a NaN decimal is not valid JSON") }
            return .literal(decimal.description)
        }
        let encoder = JSONTreeEncoder(codingPath: path())
        try value.encode(to: encoder)
        if let tree = encoder.tree { return tree }
        guard !isTopLevel else { throw invalid(value, at: path(), "\(T.self) did not encode any values") }
        return .object(JSONObjectBox())
    }

    /// `value` as a JSON number; infinity and NaN are refused, as `JSONEncoder` refuses them.
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: F, at path: @autoclosure () -> [any CodingKey]
    ) throws -> JSONTree {
        guard value.isFinite else { throw invalid(value, at: path(), "\(value) is not a valid JSON number") }
        return .literal(value.description)
    }

    static func invalid(_ value: Any, at path: [any CodingKey], _ reason: String) -> EncodingError {
        EncodingError.invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: reason))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: JSONObjectBox
        if case .object(let existing) = tree {
            box = existing
        } else {
            box = JSONObjectBox()
            tree = .object(box)
        }
        return KeyedEncodingContainer(JSONKeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: JSONArrayBox
        if case .array(let existing) = tree {
            box = existing
        } else {
            box = JSONArrayBox()
            tree = .array(box)
        }
        return JSONUnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // SingleValueEncodingContainer
    func encodeNil() { tree = .literal("null") }
    func encode(_ value: Bool) { tree = .literal(value ? "true" : "false") }
    func encode(_ value: String) { tree = .string(value) }
    func encode(_ value: Double) throws { tree = try Self.number(value, at: codingPath) }
    func encode(_ value: Float) throws { tree = try Self.number(value, at: codingPath) }
    func encode(_ value: Int) { tree = .literal(String(value)) }
    func encode(_ value: Int8) { tree = .literal(String(value)) }
    func encode(_ value: Int16) { tree = .literal(String(value)) }
    func encode(_ value: Int32) { tree = .literal(String(value)) }
    func encode(_ value: Int64) { tree = .literal(String(value)) }
    func encode(_ value: UInt) { tree = .literal(String(value)) }
    func encode(_ value: UInt8) { tree = .literal(String(value)) }
    func encode(_ value: UInt16) { tree = .literal(String(value)) }
    func encode(_ value: UInt32) { tree = .literal(String(value)) }
    func encode(_ value: UInt64) { tree = .literal(String(value)) }
    func encode<T: Encodable>(_ value: T) throws { tree = try Self.tree(for: value, at: codingPath) }
}

/// A key made by the encoder itself: an array index, or `super`.
struct JSONKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
