import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A file a job made, named by its path.
private struct MadeFile: Codable, Sendable, Hashable, StoresFilePaths {
    var path: String
    func mappingFilePaths(_ transform: (String) throws -> String) rethrows -> MadeFile {
        MadeFile(path: try transform(path))
    }
}

/// Returns the path of a file beside the queue file, named by its input.
private struct MakeFile: Job {
    static let name = "make-file"
    let directory: String
    func run(_ name: String, context: JobContext) async throws -> MadeFile { MadeFile(path: directory + "/" + name) }
}

/// Paths in outputs are stored relative to their base and read back resolved: through a job's
/// handle and through a sequence's result alike.
@Suite(.timeLimit(.minutes(1))) struct StoredPathsTests {
    @Test func outputsStoreTheirPathsRelativeToTheQueueFileAndHandlesAndGroupsResolveThem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try JobQueue(path: directory.path("jobs.sqlite"))
        let folder = URL(fileURLWithPath: directory.path("")).standardizedFileURL.path
        queue.register(MakeFile(directory: folder + "/made"))
        let single = try await queue.enqueue(MakeFile.self, "a.txt")
        let sequence = try await queue.enqueue(.sequence([.job(MakeFile.self, "b.txt", name: "b")]))
        _ = try await queue.runDueJobs()

        // In the file: relative to the queue file's directory.
        let stored = try await queue.store.job(single.id).output ?? ""
        #expect(stored.contains("{queue}") && stored.contains("a.txt") && !stored.contains(folder), "\(stored)")
        #expect(try await single.result() == MadeFile(path: folder + "/made/a.txt"))
        let result = try await sequence.result()
        #expect(try result.output("b", as: MadeFile.self) == MadeFile(path: folder + "/made/b.txt"))
        #expect(try result.output(as: [String: MadeFile].self)["b"] == MadeFile(path: folder + "/made/b.txt"))
    }
}
