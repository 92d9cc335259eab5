import Foundation
import Synchronization

/// Turns paths into their stored form (`{base}/rest`) and back, over the bases of one queue
/// (``FileBases``), each resolved once, when the queue is opened.
struct FileLocations: Sendable {
    /// Each base's name and directory, deepest first.
    private let bases: [(name: String, directory: String)]
    /// Which types hold paths, as found out once per type.
    private let holders = PathHolderTypes()

    /// The bases of a queue whose file lies in `queueDirectory` (nil: a store on a server).
    init(_ configured: FileBases, queueDirectory: String?) {
        let manager = FileManager.default
        var bases: [String: String] = [:]
        bases["queue"] = queueDirectory ?? manager.currentDirectoryPath
        bases["application-support"] = manager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path
        bases["caches"] = manager.urls(for: .cachesDirectory, in: .userDomainMask).first?.path
        bases["temporary"] = manager.temporaryDirectory.path
        for group in configured.appGroups {
            bases["app-group:\(group)"] = AppGroupContainer.path(of: group)
        }
        for (name, directory) in configured.directories { bases[name] = directory }
        self.bases = bases.map { ($0.key, Self.standardized($0.value)) }.sorted { $0.directory.count > $1.directory.count }
    }

    /// `path` in its stored form: `{base}/rest` under the deepest base that holds it, else the
    /// path made absolute (against the working directory) and standardized.
    func stored(_ path: String) -> String {
        guard !Self.isStoredForm(path) else { return path }
        let absolute = Self.standardized(path)
        for (name, directory) in bases {
            if absolute == directory { return "{\(name)}" }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            if absolute.hasPrefix(prefix) { return "{\(name)}/" + absolute.dropFirst(prefix.count) }
        }
        return absolute
    }

    /// The path that `stored` names here and now: a `{base}/rest` form under where that base
    /// is now; any other path as it is.
    ///
    /// - Throws: `invalidArgument` for a base this process does not know (an app group or a
    ///   directory missing from ``FileBases``).
    func resolved(_ stored: String) throws -> String {
        guard Self.isStoredForm(stored), let close = stored.firstIndex(of: "}") else { return stored }
        let name = String(stored[stored.index(after: stored.startIndex)..<close])
        guard let directory = bases.first(where: { $0.name == name })?.directory else {
            throw DurableQueueError.invalidArgument(
                "path", "'\(stored)' lies under the base '\(name)', which this process does not know: add it to Configuration.fileBases")
        }
        let rest = stored[stored.index(after: close)...]
        return rest.isEmpty ? directory : directory + rest
    }

    /// `value` with the paths it holds in their stored form, as JSON (see ``StoresFilePaths``).
    func storedJSON<T: Encodable>(_ value: T) throws -> String {
        guard holders.holdsPaths(T.self), let holder = value as? any StoresFilePaths, let mapped = holder.mappingFilePaths(stored) as? T else {
            return try JobCodec.encode(value)
        }
        return try JobCodec.encode(mapped)
    }

    /// `value` with the stored paths it holds resolved (see ``StoresFilePaths``).
    func resolved<T>(_ value: T) throws -> T {
        guard holders.holdsPaths(T.self), let holder = value as? any StoresFilePaths else { return value }
        return try holder.mappingFilePaths(resolved) as? T ?? value
    }

    /// The value that `json` encodes, with the stored paths it holds resolved.
    func resolvedValue<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        try resolved(try JobCodec.decode(T.self, from: json))
    }

    /// Whether `path` is in the stored form `{base}` or `{base}/rest`.
    private static func isStoredForm(_ path: String) -> Bool {
        guard path.first == "{", let close = path.firstIndex(of: "}") else { return false }
        let rest = path[path.index(after: close)...]
        return rest.isEmpty || rest.first == "/"
    }

    /// `path` made absolute against the working directory, without `.`, `..` or doubled slashes.
    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

/// Which types conform to ``StoresFilePaths``, found out once per type: a cast to the protocol on
/// every enqueue and every attempt cost about 800 instructions (2 % of an enqueue); a look-up in
/// the table costs a lock and a hash (about 800 too, with its generic lock). The type asked about
/// last is answered from one atomic word: most queues enqueue and run one input type after another.
private final class PathHolderTypes: Sendable {
    private let known = Mutex<[ObjectIdentifier: Bool]>([:])
    /// The last type's metadata address, with the answer in its lowest bit (metadata is aligned:
    /// that bit of its address is 0; were it not, the word would never match and the table would
    /// answer); 0 until a first answer.
    private let last = Atomic<UInt>(0)

    func holdsPaths<T>(_ type: T.Type) -> Bool {
        let key = ObjectIdentifier(type)
        let address = UInt(bitPattern: key)
        let remembered = last.load(ordering: .relaxed)
        if remembered & ~1 == address { return remembered & 1 == 1 }
        let holds: Bool
        if let known = known.withLock({ $0[key] }) {
            holds = known
        } else {
            holds = type is any StoresFilePaths.Type
            known.withLock { $0[key] = holds }
        }
        last.store(address | (holds ? 1 : 0), ordering: .relaxed)
        return holds
    }
}
