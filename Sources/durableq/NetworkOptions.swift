import ArgumentParser
import DurableDownloads
import Foundation

/// How `download` and `run` reach servers: logins from a netrc file, read when each request is
/// sent, and how long a connection may take to open.
struct NetworkOptions: ParsableArguments {
    @Flag(
        help: """
            Send the login that ~/.netrc (or the file $NETRC names) gives each URL's host. It is read when a \
            request is sent and never stored in the queue file; a URL with a password in it is refused.
            """)
    var netrc = false

    @Option(help: ArgumentHelp("Like --netrc, with this netrc file.", valueName: "path"))
    var netrcFile: String?

    @Option(
        help: ArgumentHelp(
            "How long a connection may take to open (a refused one is tried again until then) before the attempt fails.",
            valueName: "duration"))
    var connectTimeout: DurationArgument = DurationArgument(.seconds(10))

    func validate() throws {
        guard connectTimeout.duration > .zero else { throw ValidationError("--connect-timeout must be positive") }
    }

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
