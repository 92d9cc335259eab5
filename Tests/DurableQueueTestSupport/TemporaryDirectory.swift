import Foundation

/// A fresh directory under the system's temporary directory (or `base`), removed by `remove()`.
package struct TemporaryDirectory: Sendable {
    package let url: URL

    package init(in base: URL = FileManager.default.temporaryDirectory) throws {
        url = base.appendingPathComponent("DurableQueueTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    package func remove() { try? FileManager.default.removeItem(at: url) }
}
