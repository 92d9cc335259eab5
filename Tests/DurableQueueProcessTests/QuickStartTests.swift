import DurableQueueTestSupport
import Foundation
import Testing

/// The quick start of the README and of the Getting Started article is the `durableq-quickstart`
/// executable, word for word, and it works.
@Suite struct QuickStartTests {
    @Test(arguments: ["README.md", "Sources/DurableQueueCore/DurableQueueCore.docc/GettingStarted.md"])
    func theDocsShowTheQuickStartProgramVerbatim(_ document: String) throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        let program = try String(
            contentsOf: packageRoot.appendingPathComponent("Sources/durableq-quickstart/main.swift"), encoding: .utf8)
        #expect(text.contains("```swift\n" + program + "```\n"))
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
