import DurableQueue
import DurableQueueInspection
import Foundation

/// Pieces of HTML: every text from the store passes through ``escape(_:)``.
enum HTML {
    /// `text` safe inside an element or a quoted attribute.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A query string (from `?`) of the non-empty values, percent-encoded and escaped for an attribute.
    static func query(_ items: [(String, String?)]) -> String {
        escape(rawQuery(items))
    }

    /// A query string (from `?`) of the non-empty values, percent-encoded (for a redirect's location).
    static func rawQuery(_ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : URLQueryItem(name: name, value: $0) } }
        return components.percentEncodedQuery.map { "?" + $0.replacingOccurrences(of: "+", with: "%2B") } ?? ""
    }

    /// A path segment percent-encoded (for a queue name in a URL).
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// A state as a coloured badge.
    static func badge(_ state: JobState) -> String {
        "<span class=\"badge \(state.rawValue)\">\(state.rawValue)</span>"
    }

    /// A table with a header row; each row's cells are HTML already.
    static func table(_ header: [String], _ rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(escape(empty))</p>" }
        let head = header.map { "<th>\(escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        return "<div class=\"scroll\"><table><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table></div>"
    }

    /// A POST form with one button, for an action; `back` is where the dashboard returns after it.
    static func actionButton(_ label: String, path: String, back: String, enabled: Bool, danger: Bool = false) -> String {
        let disabled = enabled ? "" : " disabled title=\"open the URL with the token to act\""
        return """
            <form method="post" action="\(escape(path))" class="action"><input type="hidden" name="back" value="\(escape(back))">\
            <button type="submit"\(danger ? " class=\"danger\"" : "")\(disabled)>\(escape(label))</button></form>
            """
    }

    /// A time as the views show it (UTC, to the millisecond), or a dash.
    static func time(_ milliseconds: Int64?) -> String {
        milliseconds.map { "<time>\(escape(Formatting.timestamp($0)))</time>" } ?? "–"
    }

    /// JSON text indented for reading; text that is not JSON as it is.
    static func prettyJSON(_ text: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]),
            let pretty = String(data: data, encoding: .utf8)
        else { return text }
        return pretty
    }
}
