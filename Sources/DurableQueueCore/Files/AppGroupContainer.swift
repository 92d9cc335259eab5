import Foundation

/// Where an app group's shared container is (see ``FileBases/appGroups``).
enum AppGroupContainer {
    /// The container of app group `identifier`; nil where there are no app groups, or this app is
    /// not entitled to it.
    static func path(of identifier: String) -> String? {
        #if canImport(Darwin)
            FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)?.path
        #else
            nil
        #endif
    }
}
