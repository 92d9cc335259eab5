/// A JSON value being built by ``JSONTextEncoder``, written out as compact UTF-8 once complete.
///
/// Objects and arrays are boxes, because a container handed out by an encoder keeps adding to
/// them after the value was placed in its parent.
enum JSONTree {
    /// A string, quoted and escaped when written.
    case string(String)
    /// A number, `true`, `false` or `null`, written as it is.
    case literal(String)
    case object(JSONObjectBox)
    case array(JSONArrayBox)
    /// What a `superEncoder()` produces: known only once its user has finished with it.
    case deferred(JSONTreeEncoder)

    /// Appends the value's JSON to `bytes`.
    func write(to bytes: inout [UInt8]) {
        switch self {
        case .string(let string):
            JSONTree.appendQuoted(string, to: &bytes)
        case .literal(let literal):
            bytes.append(contentsOf: literal.utf8)
        case .object(let box):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in box.members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONTree.appendQuoted(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let box):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in box.values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .deferred(let encoder):
            (encoder.tree ?? .object(JSONObjectBox())).write(to: &bytes)
        }
    }

    /// Appends `string` as a JSON string literal: quotes, backslashes and control characters
    /// escaped; everything else, `/` and non-ASCII included, as it is (readable in `sqlite3`).
    static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // In place when the string is stored as UTF-8 (a copy of it was a tenth of the writing).
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaping($0, to: &bytes) }) == nil {
            var native = string
            native.withUTF8 { appendEscaping($0, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` with quotes, backslashes and control characters escaped.
    private static func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var plainFrom = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainFrom..<index]))
            appendEscaped(byte, to: &bytes)
            plainFrom = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainFrom...]))
    }

    /// A quote, a backslash or a control character as its JSON escape.
    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}

/// The members of a JSON object, in the order they were encoded.
final class JSONObjectBox {
    // Unchecked: one encoder fills it on one thread; the run-time check cost more than the append.
    @exclusivity(unchecked) var members: [(key: String, value: JSONTree)]

    /// An empty object with room for a few members: growing from empty reallocated the list
    /// three times for a five-member object.
    init() {
        members = []
        members.reserveCapacity(8)
    }
}

/// The elements of a JSON array.
final class JSONArrayBox {
    var values: [JSONTree] = []
}
