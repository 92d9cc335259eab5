import Foundation

/// The files this process holds open whose paths start with `prefix` (a database file and its
/// `-wal` and `-shm`, say), read from `/proc/self/fd`: empty where there is no `/proc`.
package func openFiles(startingWith prefix: String) -> [String] {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.compactMap { descriptor in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)") else { return nil }
        return target.hasPrefix(prefix) ? target : nil
    }.sorted()
}
