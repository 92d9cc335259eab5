import Foundation

/// Turns a name that came from a server or a URL into a file name that stays in its directory.
package enum FileName {
    /// `name` without any directory part, control characters, or a `.`/`..` meaning; at most 200
    /// bytes; "download" when nothing usable is left.
    static func sanitized(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != ":" })
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        while cleaned.utf8.count > 200 { cleaned.removeLast() }
        return cleaned.isEmpty ? "download" : cleaned
    }

    /// The file name in a `Content-Disposition` header (`filename="…"` or `filename=…`), if any.
    package static func fromContentDisposition(_ header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix("filename=") else { continue }
            let value = pair.dropFirst("filename=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// `name`, or for `number` 1, 2 … the name browsers give a second, third … file of that name:
    /// `same.bin`, `same (1).bin`, `same (2).bin`; `archive.tar.gz`, `archive (1).tar.gz`.
    static func numbered(_ name: String, _ number: Int) -> String {
        guard number > 0 else { return name }
        guard let dot = name.dropFirst().firstIndex(of: ".") else { return "\(name) (\(number))" }
        return "\(name[..<dot]) (\(number))\(name[dot...])"
    }

    /// Whether anything has the name `path`: a file, a directory, or a link (even one to nothing).
    static func isTaken(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The last path component of `url`, percent-decoded, if any.
    static func fromURL(_ url: URL) -> String? {
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? nil : last
    }
}
