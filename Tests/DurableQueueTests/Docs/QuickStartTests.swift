import DurableQueueTestSupport
import Foundation
import Testing

/// The README's quick start is the `durableq-quickstart` executable, word for word, and it works.
@Suite struct QuickStartTests {
    /// The package's root directory, found from this source file's path.
    @Test func theReadmeShowsTheQuickStartProgramVerbatim() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let program = try String(
            contentsOf: packageRoot.appendingPathComponent("Sources/durableq-quickstart/main.swift"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + program + "```\n"))
    }

    @Test func theQuickStartRunsAJobAndCancelsAnother() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let quickStart = try WorkerProcess([], executable: "durableq-quickstart", directory: directory.url.path)
        let output = await quickStart.readOutput()
        #expect(await quickStart.waitForExit() == 0)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("job 1: ") == true)
        #expect(lines.contains("job 1: succeeded"))
        #expect(lines.contains("cat.jpg at 320 px (attempt 1)"))
        #expect(lines.last == "job 2: cancelled")
        #expect(FileManager.default.fileExists(atPath: directory.path("quickstart.sqlite")))
    }
}
