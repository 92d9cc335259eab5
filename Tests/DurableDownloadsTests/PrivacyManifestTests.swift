import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableDownloads

/// Downloads `stat` their own part files (inside the app's container): their module's privacy
/// manifest says so (file timestamps, C617.1).
@Suite struct DownloadsPrivacyManifestTests {
    @Test func downloadsDeclareTheirFileMetadataReadsForFilesInsideTheContainer() throws {
        let manifest = try #require(try PrivacyManifest(in: Bundle.module))
        #expect(manifest.tracking == false)
        #expect(manifest.reasons == ["NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]])
    }
}
