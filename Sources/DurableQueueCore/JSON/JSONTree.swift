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
            box.contents.write(to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .array(let box):
            bytes.append(UInt8(ascii: "["))
            box.contents.write(to: &bytes)
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

/// The text of an object's members or an array's elements, comma-separated, in the order they were
/// encoded. A leaf is written at once; a value that its container may still fill (a nested container,
/// a super-encoder's value) keeps its place in the text and is written with the whole.
///
/// Writing leaves at once spared a tree node per member and a second walk over them: a seventh of
/// the cost of encoding a flat input (callgrind, the peers' 100-byte input: 9.3k → 8.0k instructions).
struct JSONContents {
    /// The text so far, without the enclosing braces or brackets.
    private var text: [UInt8] = []
    /// The values still to be written, each at its offset in `text`, in order.
    private var later: [(offset: Int, value: JSONTree)] = []
    /// How many members or elements there are.
    private(set) var count = 0

    /// Room for a typical input's members at once: growing from empty reallocated several times.
    init() {
        text.reserveCapacity(128)
    }

    /// Starts the next member: a comma after an earlier one, then `key` quoted and a colon.
    mutating func startMember(_ key: String) {
        startElement()
        JSONTree.appendQuoted(key, to: &text)
        text.append(UInt8(ascii: ":"))
    }

    /// Starts the next element: a comma after an earlier one.
    mutating func startElement() {
        if count > 0 { text.append(UInt8(ascii: ",")) }
        count += 1
    }

    /// Appends `value` after a started member or element: its text now if it is a leaf, its place otherwise.
    mutating func append(_ value: JSONTree) {
        switch value {
        case .string(let string): JSONTree.appendQuoted(string, to: &text)
        case .literal(let literal): text.append(contentsOf: literal.utf8)
        case .object, .array, .deferred: later.append((text.count, value))
        }
    }

    /// Appends `string`, quoted, after a started member or element.
    mutating func appendString(_ string: String) {
        JSONTree.appendQuoted(string, to: &text)
    }

    /// The whole text between `opening` and `closing`, as a string, if no value is still to be
    /// written in it: one copy, where writing it to an array first and decoding that made two.
    func finishedText(opening: Unicode.Scalar, closing: Unicode.Scalar) -> String? {
        guard later.isEmpty else { return nil }
        return text.withUnsafeBufferPointer { text in
            String(unsafeUninitializedCapacity: text.count + 2) { string in
                string[0] = UInt8(ascii: opening)
                _ = UnsafeMutableBufferPointer(rebasing: string[1...]).initialize(from: text)
                string[text.count + 1] = UInt8(ascii: closing)
                return text.count + 2
            }
        }
    }

    /// Appends the whole text to `bytes`, each later value written at its place.
    func write(to bytes: inout [UInt8]) {
        var from = 0
        for (offset, value) in later {
            bytes.append(contentsOf: text[from..<offset])
            value.write(to: &bytes)
            from = offset
        }
        bytes.append(contentsOf: text[from...])
    }
}

/// The members of a JSON object, in the order they were encoded.
final class JSONObjectBox {
    // Unchecked: one encoder fills it on one thread; the run-time check cost more than the append.
    @exclusivity(unchecked) var contents = JSONContents()
}

/// The elements of a JSON array.
final class JSONArrayBox {
    @exclusivity(unchecked) var contents = JSONContents()
}
