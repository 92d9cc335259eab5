import Foundation

/// The directories that stored file locations are relative to: a path under one of them is stored
/// as `{name}/rest` and resolved again, at run time, wherever that directory is now.
///
/// An app's container moves (a restore, a device migration, a reinstall): a path stored whole
/// would then name a place that is gone. Paths under these bases are stored relative to them:
/// - `{queue}`: the directory of the queue's SQLite file (for a store on a server, the working
///   directory when the queue was opened);
/// - `{application-support}`, `{caches}`, `{temporary}`: the platform's directories for the
///   current user or app container (on Linux `~/.local/share`, `~/.cache` and the temporary
///   directory);
/// - `{app-group:<identifier>}`: an app group's shared container, for each identifier in
///   ``appGroups`` (Apple platforms);
/// - `{<name>}`: each directory in ``directories``, for a server that places files itself.
///
/// When several hold a path, the deepest wins. A path under none is stored as given.
public struct FileBases: Sendable, Hashable {
    /// Directories of your own, by name (not one of the built-in names); for example
    /// `["media": "/srv/media"]`. A location stored under one resolves wherever it points at
    /// run time.
    public var directories: [String: String]
    /// App group identifiers whose shared containers are bases (Apple platforms; ignored elsewhere).
    public var appGroups: [String]

    /// Bases; see each property.
    public init(directories: [String: String] = [:], appGroups: [String] = []) {
        self.directories = directories
        self.appGroups = appGroups
    }

    /// The names the library gives its own bases.
    static let builtInNames: Set<String> = ["queue", "application-support", "caches", "temporary"]

    /// Checks that no name of ``directories`` is a built-in one or malformed.
    func validate() throws {
        for name in directories.keys {
            guard !Self.builtInNames.contains(name), !name.hasPrefix("app-group:"), !name.isEmpty,
                !name.contains("{"), !name.contains("}"), !name.contains("/")
            else {
                throw DurableQueueError.invalidArgument(
                    "fileBases.directories", "'\(name)' cannot name a base (built-in names, app-group:…, braces and slashes are taken)")
            }
        }
    }
}
