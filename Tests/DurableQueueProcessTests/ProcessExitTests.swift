import DurableQueueTestSupport
import Foundation
import Testing

/// The tests' watch on a child's exit (``ProcessExit``) sees it even when the child left a process
/// behind that holds the descriptors it inherited, as a shell starting a server in the background
/// or tmux starting its server does: Foundation alone sees such an exit only once that process ends.
@Suite(.tags(.crash), .timeLimit(.minutes(1))) struct ProcessExitTests {
    @Test func aChildWhoseBackgroundProcessOutlivesItIsSeenToExitWithItsStatus() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.path("sleeper.pid")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "sleep 300 & echo $! > \"$0\"; exit 3", pidFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exit = try ProcessExit.run(process)
        #expect(await exit.status() == 3)
        #expect(kill(process.processIdentifier, 0) == -1 && errno == ESRCH, "the child is reaped")

        let sleeper = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(sleeper, 0) == 0, "the background process still runs, holding the child's descriptors")
        kill(sleeper, SIGKILL)
    }

    @Test func aChildKilledByASignalIsSeenWithTheSignalsNumberAndIsGone() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["300"]
        let exit = try ProcessExit.run(process)
        kill(process.processIdentifier, SIGKILL)
        #expect(await exit.status() == SIGKILL)
        // Reaped: no zombie answers for the pid (tests judge a worker's liveness by it).
        #expect(kill(process.processIdentifier, 0) == -1 && errno == ESRCH)
    }

    /// Foundation and the watch's own thread both wait for each child; whichever reaps second finds
    /// nothing (Foundation then reports 0): the status heard is always the child's.
    @Test func manyChildrenExitingAtOnceAreEachHeardWithTheirOwnStatus() async throws {
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<500 {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "exit 3"]
                let exit = try ProcessExit.run(process)
                group.addTask { await exit.status() }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 500 && statuses.allSatisfy { $0 == 3 }, "\(statuses.filter { $0 != 3 }.count) heard wrongly")
    }
}

