import Foundation

/// The package's top folder (where README.md is), found from this source file's place.
package let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
