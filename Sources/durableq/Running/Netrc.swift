import Foundation

/// User names and passwords by host, from a netrc file as curl and ftp read it (`machine HOST
/// login NAME password SECRET`, and `default login NAME password SECRET`).
///
/// They become an `Authorization: Basic …` header when a request to the host is sent: they never
/// reach the queue file.
struct Netrc: Sendable {
    struct Login: Sendable {
        var name: String
        var password: String
    }

    private var machines: [String: Login] = [:]
    private var fallback: Login?

    /// Reads the netrc file at `path`.
    ///
    /// - Throws: ``CommandFailure`` when it cannot be read.
    init(path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandFailure(message: "cannot read the netrc file \(path)")
        }
        self.init(text: text)
    }

    /// Parses netrc text; `macdef` macros (up to the next empty line) are skipped.
    init(text: String) {
        var kept: [Substring] = []
        var inMacro = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if inMacro {
                inMacro = !line.allSatisfy(\.isWhitespace)
                continue
            }
            if line.split(whereSeparator: \.isWhitespace).first == "macdef" {
                inMacro = true
                continue
            }
            kept.append(line)
        }
        var tokens = kept.joined(separator: "\n").split(whereSeparator: \.isWhitespace).map(String.init)[...]
        var host: String?
        var isDefault = false
        var login = Login(name: "", password: "")
        func store() {
            if let host { machines[host.lowercased()] = login } else if isDefault { fallback = login }
        }
        while let token = tokens.popFirst() {
            switch token {
            case "machine", "default":
                store()
                host = token == "machine" ? tokens.popFirst() : nil
                isDefault = token == "default"
                login = Login(name: "", password: "")
            case "login": login.name = tokens.popFirst() ?? ""
            case "password": login.password = tokens.popFirst() ?? ""
            default: continue
            }
        }
        store()
    }

    /// The login for `host`, or the default one.
    func login(for host: String) -> Login? {
        machines[host.lowercased()] ?? fallback
    }

    /// The headers that authenticate a request to `url`, if the file has a login for its host.
    func headers(for url: URL) -> [(String, String)] {
        guard let host = url.host, let login = login(for: host) else { return [] }
        let token = Data("\(login.name):\(login.password)".utf8).base64EncodedString()
        return [("Authorization", "Basic \(token)")]
    }
}
