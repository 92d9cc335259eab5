import Foundation

/// What a test run may use besides SQLite files and child processes.
///
/// By default every test runs, and a test that needs a server (PostgreSQL, started by
/// ``TestPostgresServer``), a browser (Chromium) or a tool `.ci/run` installs (tmux, strace) fails
/// when it cannot have one: it never skips. `DURABLEQUEUE_TESTS=local` runs only what needs no
/// server and no browser, and the tool tests only where the tool is installed — the SQLite half of
/// the conformance suite and everything else — for a quick run on a machine without Debian's
/// `postgresql` and `chromium`; the tests left out say so. `.ci/run` refuses that setting, so CI
/// never skips.
package enum TestEnvironment {
    /// The environment variable, and its value that leaves out the tests needing a server.
    package static let variable = "DURABLEQUEUE_TESTS"
    package static let localOnly = "local"

    /// Whether the tests that need a PostgreSQL server or a browser run (the default).
    package static var serversEnabled: Bool {
        ProcessInfo.processInfo.environment[variable] != localOnly
    }

    /// Why a test is left out when ``serversEnabled`` is false, for its `.enabled(if:)` trait.
    package static let skipReason = "needs a server or a browser; \(variable)=\(localOnly) leaves it out"
}
