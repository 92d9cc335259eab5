/// The parameters of an application's statement (``QueueTransaction``), written the same way on
/// every store: `?` (the next number), `?N` or `$N` (number N), rewritten into the form the store's
/// database reads — SQLite's `?N`, PostgreSQL's `$N` — so that one job body runs on either.
///
/// Placeholders are found outside string literals (`'…'`), quoted identifiers (`"…"`), comments
/// (`-- …`, `/* … */`) and PostgreSQL's dollar-quoted strings (`$tag$…$tag$`). A `$` that follows
/// a letter, digit, `_` or `$` is part of an identifier (PostgreSQL allows `a$1`), not a parameter.
/// A `?` is the next number after the largest used so far, as SQLite numbers it.
package enum SQLPlaceholders {
    /// How a store's database writes parameter number N.
    package enum Style: Sendable {
        /// `?N`: SQLite.
        case question
        /// `$N`: PostgreSQL.
        case dollar
    }

    /// `sql` with every parameter written in `style`; `sql` itself when it has none to change.
    package static func rewrite(_ sql: String, to style: Style) -> String {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var largest = 0
        var changed = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if let end = endOfQuoted(bytes, at: index) {
                output.append(contentsOf: bytes[index..<end])
                index = end
                continue
            }
            let isQuestion = byte == UInt8(ascii: "?")
            let isDollar = byte == UInt8(ascii: "$") && (index == 0 || !isIdentifierByte(bytes[index - 1]))
            guard isQuestion || isDollar else {
                output.append(byte)
                index += 1
                continue
            }
            var digitsEnd = index + 1
            while digitsEnd < bytes.count, isDigit(bytes[digitsEnd]) { digitsEnd += 1 }
            let digits = bytes[(index + 1)..<digitsEnd]
            guard isQuestion || !digits.isEmpty else {
                output.append(byte)
                index += 1
                continue
            }
            let number = digits.isEmpty ? largest + 1 : digits.reduce(0) { $0 &* 10 &+ Int($1 - UInt8(ascii: "0")) }
            largest = max(largest, number)
            let wanted: UInt8 = style == .question ? UInt8(ascii: "?") : UInt8(ascii: "$")
            if byte != wanted || digits.isEmpty { changed = true }
            output.append(wanted)
            output.append(contentsOf: String(number).utf8)
            index = digitsEnd
        }
        return changed ? String(decoding: output, as: UTF8.self) : sql
    }

    /// Where the literal, quoted identifier, comment or dollar-quoted string that starts at `index`
    /// ends (just after it); nil when none starts there. One left open runs to the end of the text.
    private static func endOfQuoted(_ bytes: [UInt8], at index: Int) -> Int? {
        let byte = bytes[index]
        let next = index + 1 < bytes.count ? bytes[index + 1] : 0
        switch byte {
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            // A doubled quote inside stands for one: the scan just goes on past it.
            var end = index + 1
            while end < bytes.count {
                if bytes[end] == byte {
                    if end + 1 < bytes.count, bytes[end + 1] == byte { end += 2; continue }
                    return end + 1
                }
                end += 1
            }
            return bytes.count
        case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
            var end = index + 2
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            return end
        case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
            var end = index + 2
            while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
            return min(end + 2, bytes.count)
        case UInt8(ascii: "$") where index == 0 || !isIdentifierByte(bytes[index - 1]):
            // $tag$ … $tag$, the tag empty or an identifier that does not start with a digit.
            var tagEnd = index + 1
            while tagEnd < bytes.count, isIdentifierByte(bytes[tagEnd]), bytes[tagEnd] != UInt8(ascii: "$") { tagEnd += 1 }
            guard tagEnd < bytes.count, bytes[tagEnd] == UInt8(ascii: "$"), tagEnd == index + 1 || !isDigit(bytes[index + 1]) else {
                return nil
            }
            let tag = bytes[index...tagEnd]
            var end = tagEnd + 1
            while end + tag.count <= bytes.count {
                if bytes[end..<(end + tag.count)].elementsEqual(tag) { return end + tag.count }
                end += 1
            }
            return bytes.count
        default:
            return nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }
}
