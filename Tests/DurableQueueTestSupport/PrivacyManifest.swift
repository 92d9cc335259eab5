import Foundation

/// A module's privacy manifest (`PrivacyInfo.xcprivacy`) as App Store review reads it.
package struct PrivacyManifest {
    /// `NSPrivacyTracking`.
    package let tracking: Bool?
    /// The reasons declared per accessed API category (`NSPrivacyAccessedAPITypes`).
    package let reasons: [String: [String]]

    /// Reads the manifest among `bundle`'s resources; nil if it has none.
    package init?(in bundle: Bundle) throws {
        guard let url = bundle.url(forResource: "PrivacyInfo", withExtension: "xcprivacy") else { return nil }
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any] ?? [:]
        tracking = plist["NSPrivacyTracking"] as? Bool
        var reasons: [String: [String]] = [:]
        for entry in plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? [] {
            if let type = entry["NSPrivacyAccessedAPIType"] as? String {
                reasons[type] = entry["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
            }
        }
        self.reasons = reasons
    }
}
