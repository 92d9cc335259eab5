/// A JSON value read by ``JSONParser``, for ``JSONTextDecoder``.
enum ParsedJSON {
    case string(String)
    /// A number as written, converted when a value of a numeric type asks for it.
    case number(String)
    case bool(Bool)
    case null
    case array([ParsedJSON])
    /// Members in the order written.
    case object([(key: String, value: ParsedJSON)])

    /// What the value is, in words, for an error message.
    var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Reads JSON text (RFC 8259) into a ``ParsedJSON``: any value at the top level, whitespace
/// around tokens, escapes including surrogate pairs; anything else is `DecodingError.dataCorrupted`.
struct JSONParser {
    /// Deeper nesting than this is refused rather than risking the stack, as `JSONDecoder` does.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// The value in `text`.
    static func parse(_ text: String) throws -> ParsedJSON {
        var text = text
        return try text.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes)
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw parser.corrupted("unexpected text after the JSON value") }
            return value
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func value(depth: Int) throws -> ParsedJSON {
        guard depth < Self.maximumDepth else { throw corrupted("nested deeper than \(Self.maximumDepth) levels") }
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end of the text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws -> ParsedJSON {
        index += 1
        var members: [(key: String, value: ParsedJSON)] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        // Room for a typical input's members at once: growing 1, 2, 4, 8 cost an allocation each.
        members.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw corrupted("expected a member name in quotes") }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "}") { return .object(members) }
            guard next == UInt8(ascii: ",") else { throw corrupted("expected , or } in an object", at: index - 1) }
        }
    }

    private mutating func array(depth: Int) throws -> ParsedJSON {
        index += 1
        var values: [ParsedJSON] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            values.append(try value(depth: depth + 1))
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "]") { return .array(values) }
            guard next == UInt8(ascii: ",") else { throw corrupted("expected , or ] in an array", at: index - 1) }
        }
    }

    /// A string literal, the index at its opening quote.
    private mutating func string() throws -> String {
        index += 1
        let start = index
        // Most strings have no escape: one slice of the text.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw corrupted("a control character in a string") }
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try unescape(into: &decoded)
            case ..<0x20:
                throw corrupted("a control character in a string", at: index - 1)
            default:
                decoded.append(byte)
            }
        }
        throw corrupted("a string without its closing quote", at: start - 1)
    }

    /// The escape after a backslash, appended to `decoded` as UTF-8.
    private mutating func unescape(into decoded: inout [UInt8]) throws {
        let escape = try peek()
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var code = UInt32(try hexQuad())
            if (0xD800..<0xDC00).contains(code) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw corrupted("a lone surrogate in a \\u escape")
                }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw corrupted("a lone surrogate in a \\u escape") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw corrupted("a lone surrogate in a \\u escape") }
            decoded.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw corrupted("an unknown escape \\\(Character(Unicode.Scalar(escape)))", at: index - 1)
        }
    }

    private mutating func hexQuad() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw corrupted("a \\u escape cut short") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw corrupted("a \\u escape with a character that is not hexadecimal")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// A number, checked against JSON's grammar: `-`? int frac? exp?
    private mutating func number() throws -> String {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw corrupted("unexpected character", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw corrupted("a number without digits after its point") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw corrupted("a number without digits in its exponent") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func literal(_ word: StaticString, _ value: ParsedJSON) throws -> ParsedJSON {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw corrupted("unexpected character") }
        index += count
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private func peek() throws -> UInt8 {
        guard index < bytes.count else { throw corrupted("unexpected end of the text") }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try peek() == byte else { throw corrupted("expected \(Character(Unicode.Scalar(byte)))") }
        index += 1
    }

    private func corrupted(_ reason: String, at position: Int? = nil) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON: \(reason) at byte \(position ?? index)."))
    }
}
