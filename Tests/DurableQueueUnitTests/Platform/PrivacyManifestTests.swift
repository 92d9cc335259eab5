import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore

/// The core ships a privacy manifest (App Store review asks why an SDK reads file metadata): it is
/// in the module's resources and says "file timestamps, C617.1" (files inside the app's container).
@Suite struct PrivacyManifestTests {
    @Test func theCoreDeclaresItsFileMetadataReadsForFilesInsideTheContainer() throws {
        let manifest = try #require(try PrivacyManifest(in: Bundle.module))
        #expect(manifest.tracking == false)
        #expect(manifest.reasons == ["NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]])
    }
}
