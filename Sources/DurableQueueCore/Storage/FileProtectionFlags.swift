import Foundation

/// Applies a ``FileProtection`` class where the platform has data protection: iOS, iPadOS, tvOS,
/// watchOS and visionOS (not macOS, and not Linux, where this does nothing).
package enum FileProtectionFlags {
    /// The `sqlite3_open_v2` flag that gives the database and every file SQLite creates beside it
    /// (`-wal`, `-shm`) the class; 0 for none, or where the SDK's SQLite has no such flags.
    package static func openFlag(_ protection: FileProtection?) -> Int32 {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            // The SDK's SQLITE_OPEN_FILEPROTECTION_* values.
            switch protection {
            case .complete: 0x0010_0000
            case .completeUnlessOpen: 0x0020_0000
            case .completeUntilFirstUserAuthentication: 0x0030_0000
            case .none: 0x0040_0000
            case nil: 0
            }
        #else
            0
        #endif
    }

    /// Gives `paths` (those that exist) the class as a file attribute: files made before the
    /// queue asked for a class, and files SQLite does not create (a download's part file).
    package static func apply(_ protection: FileProtection?, to paths: [String]) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            guard let protection else { return }
            let type: FileProtectionType =
                switch protection {
                case .complete: .complete
                case .completeUnlessOpen: .completeUnlessOpen
                case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
                case .none: .none
                }
            for path in paths where FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: path)
            }
        #endif
    }
}
