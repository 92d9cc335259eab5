import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// A queue file holds URLs, request bodies, outputs and errors: new ones are the owner's only.
@Suite struct FilePermissionTests {
    private func permissions(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func aNewFileAndItsLogAreReadableByTheOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let queue = try JobQueue(path: path)
        _ = try await queue.enqueue(Echo.self, "x")  // the log and shared-memory files exist while the file is open
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(try permissions(file) == 0o600, "\(file)")
        }
    }

    @Test func askedPermissionsAreKeptExactlyWhateverTheUmask() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("shared.sqlite")
        // 0o664 with the usual umask of 0o022 would become 0o644.
        let queue = try JobQueue(path: path, configuration: JobQueue.Configuration(storage: StorageOptions(filePermissions: 0o664)))
        _ = try await queue.enqueue(Echo.self, "x")
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(try permissions(file) == 0o664, "\(file)")
        }
    }

    @Test func anExistingFileKeepsItsPermissions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
        _ = try await JobQueue(path: path).enqueue(Echo.self, "x")
        #expect(try permissions(path) == 0o640)
    }

    @Test func permissionsOutOfRangeAreRefusedBeforeAnyFileIsMade() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("jobs.sqlite")
        let error = #expect(throws: DurableQueueError.self) {
            try JobQueue(path: path, configuration: JobQueue.Configuration(storage: StorageOptions(filePermissions: 0o1777)))
        }
        #expect(error?.code == .invalidArgument)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
