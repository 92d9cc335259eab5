import Foundation

/// Decodes JSON text into values as Foundation's `JSONDecoder` (default strategies) does: what
/// ``JSONTextEncoder`` or `JSONEncoder` wrote, or any other JSON, without its cost (it was a
/// seventh of a drained job's instructions).
///
/// As `JSONDecoder` does by default: `Data` from Base64, `URL` from a string, `Decimal` from a
/// number, `Date` by its own decoding (seconds since 2001), an integer only from an integral
/// number in its range.
package enum JSONTextDecoder {
    /// The `T` in JSON `text`.
    ///
    /// - Throws: `DecodingError` when the text is not JSON or does not hold a `T`.
    package static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONTreeDecoder.value(T.self, from: JSONParser.parse(text), at: [])
    }
}

/// The `Decoder` behind ``JSONTextDecoder``: one per value that has its own `init(from:)`.
struct JSONTreeDecoder: Decoder, SingleValueDecodingContainer {
    let json: ParsedJSON
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The `T` in `json` at `path` (the path built only if a decoder or an error needs it).
    static func value<T: Decodable>(_ type: T.Type, from json: ParsedJSON, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        // The common leaves first, checked by type identity (a comparison, where a cast is a
        // runtime call), then the types JSONDecoder reads otherwise than they decode themselves.
        if T.self == String.self { return try string(json, at: path()) as! T }
        if T.self == Int.self { return try integer(Int.self, json, at: path()) as! T }
        if T.self == Int64.self { return try integer(Int64.self, json, at: path()) as! T }
        if T.self == Bool.self { return try bool(json, at: path()) as! T }
        if T.self == Double.self { return try floatingPoint(Double.self, json, at: path()) as! T }
        if T.self == Data.self {
            guard let data = Data(base64Encoded: try string(json, at: path())) else {
                throw corrupted(at: path(), "the string is not valid Base64")
            }
            return data as! T
        }
        if T.self == URL.self {
            guard let url = URL(string: try string(json, at: path())) else { throw corrupted(at: path(), "the string is not a valid URL") }
            return url as! T
        }
        if T.self == Decimal.self {
            guard case .number(let text) = json else { throw mismatch(Decimal.self, json, at: path()) }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw corrupted(at: path(), "the number \(text) does not fit in Decimal")
            }
            return decimal as! T
        }
        return try T(from: JSONTreeDecoder(json: json, codingPath: path()))
    }

    static func string(_ json: ParsedJSON, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = json else { throw mismatch(String.self, json, at: path()) }
        return string
    }

    static func bool(_ json: ParsedJSON, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = json else { throw mismatch(Bool.self, json, at: path()) }
        return bool
    }

    /// An integer from a number written as one (`12`) or as an integral number (`1.2e1`).
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ json: ParsedJSON, at path: @autoclosure () -> [any CodingKey]) throws -> I {
        guard case .number(let text) = json else { throw mismatch(I.self, json, at: path()) }
        if let value = I(text) { return value }
        guard let double = Double(text), let value = I(exactly: double) else {
            throw corrupted(at: path(), "Parsed JSON number <\(text)> does not fit in \(I.self).")
        }
        return value
    }

    static func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: F.Type, _ json: ParsedJSON, at path: @autoclosure () -> [any CodingKey]
    ) throws -> F {
        guard case .number(let text) = json else { throw mismatch(F.self, json, at: path()) }
        guard let value = F(text), value.isFinite else {
            throw corrupted(at: path(), "Parsed JSON number <\(text)> does not fit in \(F.self).")
        }
        return value
    }

    static func mismatch(_ type: Any.Type, _ json: ParsedJSON, at path: [any CodingKey]) -> DecodingError {
        if case .null = json {
            return .valueNotFound(type, DecodingError.Context(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, DecodingError.Context(codingPath: path, debugDescription: "Expected to decode \(type) but found \(json.kind) instead."))
    }

    static func corrupted(at path: [any CodingKey], _ reason: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: reason))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = json else { throw Self.mismatch([String: Any].self, json, at: codingPath) }
        return KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let values) = json else { throw Self.mismatch([Any].self, json, at: codingPath) }
        return JSONUnkeyedDecodingContainer(values: values, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueDecodingContainer { self }

    // SingleValueDecodingContainer
    func decodeNil() -> Bool {
        if case .null = json { return true }
        return false
    }
    func decode(_ type: Bool.Type) throws -> Bool { try Self.bool(json, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try Self.string(json, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Self.floatingPoint(type, json, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Self.floatingPoint(type, json, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Self.integer(type, json, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Self.integer(type, json, at: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.value(type, from: json, at: codingPath) }
}
