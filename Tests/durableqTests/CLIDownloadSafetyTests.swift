import DurableQueueTestServer
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// `durableq download` and the read commands, as a user meets them on a local server.
@Suite(.serialized, .tags(.crash), .timeLimit(.minutes(3))) struct CLIDownloadSafetyTests {
    @Test(arguments: [2, 1]) func twoURLsWithOneFileNameGiveTwoFilesAndARerunFindsBoth(concurrency: Int) async throws {
        let first = TestHTTPServer.Resource(size: 3 << 20)
        let second = TestHTTPServer.Resource(size: 2 << 20)
        try await withServer(["a/same.bin": first, "b/same.bin": second]) { server, directory in
            let arguments = ["download", server.baseURL + "/files/a/same.bin", server.baseURL + "/files/b/same.bin", "--to", "out",
                             "--concurrency", "\(concurrency)"]
            let run = try await durableq(arguments, in: directory.url.path)
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("2 downloaded, 0 failed"), "\(run.stdout)")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path("out")).sorted()
            #expect(files == ["same (1).bin", "same.bin"])
            #expect(sha256Hex(Array(try Data(contentsOf: directory.url.appendingPathComponent("out/same.bin")))) == sha256Hex(first.content()))
            #expect(sha256Hex(Array(try Data(contentsOf: directory.url.appendingPathComponent("out/same (1).bin")))) == sha256Hex(second.content()))

            let again = try await durableq(arguments, in: directory.url.path)
            #expect(again.status == 0, "\(again)")
            #expect(again.stdout.contains("already downloaded \(server.baseURL)/files/a/same.bin -> \(directory.path("out/same.bin"))"), "\(again.stdout)")
            #expect(again.stdout.contains("already downloaded \(server.baseURL)/files/b/same.bin -> \(directory.path("out/same (1).bin"))"))
        }
    }

    @Test func aServerNamingTheQueueFileCannotReplaceIt() async throws {
        var named = TestHTTPServer.Resource(size: 50_000)
        named.contentDispositionName = "durableq.sqlite"
        try await withServer(["evil": named]) { server, directory in
            let run = try await durableq(["download", server.baseURL + "/files/evil", "--to", "."], in: directory.url.path)
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("-> \(directory.path("durableq (1).sqlite"))"), "\(run.stdout)")
            let status = try await durableq(["status"], in: directory.url.path)
            #expect(status.status == 0 && status.stdout.contains("downloads"), "\(status)")
        }
    }

    @Test func aNetrcLoginIsSentButNeverStored() async throws {
        try await withServer(["secret.bin": TestHTTPServer.Resource(size: 10_000)]) { server, directory in
            let netrc = directory.path("netrc")
            try "machine 127.0.0.1 login ada password hunter2-secret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
            let run = try await durableq(
                ["download", server.baseURL + "/files/secret.bin", "--to", "out", "--netrc-file", netrc], in: directory.url.path)
            #expect(run.status == 0, "\(run)")
            let expected = "Basic " + Data("ada:hunter2-secret".utf8).base64EncodedString()
            #expect(server.requests.last?.header("Authorization") == expected)
            for file in ["durableq.sqlite", "durableq.sqlite-wal"] {
                let bytes = (try? Data(contentsOf: directory.url.appendingPathComponent(file))) ?? Data()
                #expect(bytes.range(of: Data("hunter2".utf8)) == nil, "\(file) holds the password")
            }
        }
    }

    @Test func badArgumentsFailAtOnceWithAPlainMessageAndWriteNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let here = directory.url.path
        try Data("x".utf8).write(to: directory.url.appendingPathComponent("afile"))
        let cases: [(arguments: [String], message: String)] = [
            (["download", "http://ada:pw@127.0.0.1:9/x"], "holds a user name or password"),
            (["download", "http://127.0.0.1:9/x", "--to", "afile"], "--to names 'afile', which is a file, not a directory"),
            (["list", "--limit", "-5"], "--limit must be positive, not -5"),
            (["download", "http://127.0.0.1:9/x", "--concurrency", "-1"], "--concurrency must be at least 1, not -1"),
        ]
        for (arguments, message) in cases {
            let started = ContinuousClock.now
            let run = try await durableq(arguments, in: here)
            #expect(run.status == 2, "\(arguments): \(run)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("pw@"), "the password is not repeated")
            #expect(ContinuousClock.now - started < .seconds(10))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("durableq.sqlite")))
    }

    @Test func aRefusedConnectionFailsWithinTheConnectTimeoutSayingSo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let refusing = try RefusingPort()
        let port = refusing.port
        defer { withExtendedLifetime(refusing) {} }  // refusing until the test ends
        let started = ContinuousClock.now
        let run = try await durableq(
            ["download", "http://127.0.0.1:\(port)/x.bin", "--to", "out", "--max-attempts", "1", "--connect-timeout", "500ms"],
            in: directory.url.path)
        #expect(run.status == 1)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(run.stdout.contains("could not reach 127.0.0.1:\(port): connection refused"), "\(run.stdout)")
        #expect(!run.stdout.contains("errno"))
    }

    @Test func anHTTPSchemeInCapitalsDownloadsAndAnErrorPageReadsAsOneLine() async throws {
        try await withServer(["f.bin": TestHTTPServer.Resource(size: 1_000)]) { server, directory in
            let upper = try await durableq(["download", "HTTP://127.0.0.1:\(server.port)/files/f.bin", "--to", "out"], in: directory.url.path)
            #expect(upper.status == 0, "\(upper)")
            let missing = try await durableq(["download", server.baseURL + "/html-status/404", "--to", "out"], in: directory.url.path)
            #expect(missing.status == 1)
            let line = missing.stdout.split(separator: "\n").first { $0.hasPrefix("failed") }.map(String.init) ?? ""
            #expect(line.contains("): HTTP 404 Not Found; run the same command again"), "\(missing.stdout)")
            #expect(!missing.stdout.contains("<html>") && !missing.stdout.contains("nginx"))
        }
    }

    @Test func readCommandsNeitherWriteAnEmptyFileNorFailOnAReadOnlyDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = FileManager.default.createFile(atPath: directory.path("empty.sqlite"), contents: nil)
        let empty = try await durableq(["status", "--db", "empty.sqlite"], in: directory.url.path)
        #expect(empty.status == 1 && empty.stderr.contains("not a DurableQueue file: the file is empty"), "\(empty)")
        #expect(try FileManager.default.attributesOfItem(atPath: directory.path("empty.sqlite"))[.size] as? Int == 0)

        // A queue file another user may read, in a directory nobody but root may write.
        let folder = directory.path("locked")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await enqueueAndClose(NewJob(queue: "mail", kind: "send", input: "{}"), at: folder + "/q.sqlite", permissions: 0o644)
        #expect(!FileManager.default.fileExists(atPath: folder + "/q.sqlite-wal"))
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
        let status = try await durableqAsAnotherUser(["status", "--db", folder + "/q.sqlite"], in: directory.url.path)
        #expect(status.status == 0 && status.stdout.contains("mail"), "\(status)")
        let change = try await durableqAsAnotherUser(["cancel", "--all", "--db", folder + "/q.sqlite"], in: directory.url.path)
        #expect(change.status == 1 && change.stderr.contains("the directory \(folder) is read-only"), "\(change)")
        #expect(!change.stderr.contains("`") && !change.stderr.contains("SELECT"), "no SQL in messages: \(change.stderr)")
    }
}

/// Runs the built `durableq` as the unprivileged user `nobody` when the tests run as root (who may
/// write anywhere), else as this user.
private func durableqAsAnotherUser(_ arguments: [String], in directory: String) async throws -> CLIResult {
    guard getuid() == 0 else { return try await durableq(arguments, in: directory) }
    let durableqPath = WorkerProcess.productsDirectory.appendingPathComponent("durableq").path
    return try await run(
        "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", durableqPath] + arguments, in: directory)
}

/// Enqueues `job` into a new file at `path` and closes it (the last connection to close removes the
/// `-wal` and `-shm` files).
private func enqueueAndClose(_ job: NewJob, at path: String, permissions: Int) async throws {
    let store = try SQLiteJobStore(path: path, options: StorageOptions(filePermissions: permissions))
    _ = try await store.enqueue(job, now: 1)
}
