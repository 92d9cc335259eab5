/// A JSON value being built by ``JSONTextEncoder``, written out as compact text once complete.
///
/// Scalars are held as their finished text; objects and arrays are boxes, because a container
/// handed out by an encoder keeps adding to them after the value was placed in its parent.
enum JSONTree {
    /// A string, number, `true`, `false` or `null`, already written as JSON.
    case scalar(String)
    case object(JSONObjectBox)
    case array(JSONArrayBox)
    /// What a `superEncoder()` produces: known only once its user has finished with it.
    case deferred(JSONTreeEncoder)

    /// The JSON text of the value, appended to `text`.
    func write(to text: inout String) {
        switch self {
        case .scalar(let scalar):
            text += scalar
        case .object(let box):
            text += "{"
            for index in box.keys.indices {
                if index > 0 { text += "," }
                JSONTree.appendQuoted(box.keys[index], to: &text)
                text += ":"
                box.values[index].write(to: &text)
            }
            text += "}"
        case .array(let box):
            text += "["
            for index in box.values.indices {
                if index > 0 { text += "," }
                box.values[index].write(to: &text)
            }
            text += "]"
        case .deferred(let encoder):
            (encoder.tree ?? .object(JSONObjectBox())).write(to: &text)
        }
    }

    /// `string` as a JSON string literal.
    static func quoted(_ string: String) -> String {
        var text = ""
        appendQuoted(string, to: &text)
        return text
    }

    /// Appends `string` as a JSON string literal: quotes, backslashes and control characters
    /// escaped; everything else, `/` and non-ASCII included, as it is (readable in `sqlite3`).
    static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        let needsEscaping = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        if !needsEscaping {
            text += string
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}

/// The members of a JSON object, in the order they were encoded.
final class JSONObjectBox {
    var keys: [String] = []
    var values: [JSONTree] = []

    func append(_ key: String, _ value: JSONTree) {
        keys.append(key)
        values.append(value)
    }
}

/// The elements of a JSON array.
final class JSONArrayBox {
    var values: [JSONTree] = []
}
