import ArgumentParser
import DurableDownloads
import Foundation

/// How `download` and `run` authenticate: logins from a netrc file, read when each request is sent.
struct CredentialOptions: ParsableArguments {
    @Flag(
        help: """
            Send the login that ~/.netrc (or the file $NETRC names) gives each URL's host. It is read when a \
            request is sent and never stored in the queue file; a URL with a password in it is refused.
            """)
    var netrc = false

    @Option(help: ArgumentHelp("Like --netrc, with this netrc file.", valueName: "path"))
    var netrcFile: String?

    /// The credentials provider the options ask for; nil without them.
    ///
    /// - Throws: ``CommandFailure`` when the netrc file cannot be read.
    func provider() throws -> CredentialsProvider? {
        guard netrc || netrcFile != nil else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let path = netrcFile ?? environment["NETRC"] ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.netrc")
        let logins = try Netrc(path: path)
        return { url in logins.headers(for: url) }
    }
}
