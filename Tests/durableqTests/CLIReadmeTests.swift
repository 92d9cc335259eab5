import DurableQueueTestSupport
import Foundation
import Testing

/// The README's `durableq` set-up command works on a new directory, and its tour names every command.
@Suite struct CLIReadmeTests {
    /// The README's set-up commands are the demo and the tests, each a script that installs what is
    /// missing first (the demo has tests of its own: CLIDemoTests); `durableq run` on a new
    /// directory creates the default file.
    @Test func theSetUpCommandsAreTheDemoAndTheTestsAndRunCreatesTheDefaultFile() async throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("## Set up\n\n    bash .ci/demo\n    bash .ci/run\n"))
        let demo = try String(contentsOf: packageRoot.appendingPathComponent(".ci/demo"), encoding: .utf8)
        #expect(demo.contains("apt-get install -y -qq libsqlite3-dev\n") && demo.contains("exec swift run durableq demo \"$@\"\n"))
        let tests = try String(contentsOf: packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(["libsqlite3-dev", "postgresql", "chromium"].allSatisfy { tests.contains("need+=(\($0))") } && tests.contains(" swift test \"${build[@]}\" --experimental-maximum-parallelization-width 6 "))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await durableq(["run"], in: directory.url.path)
        #expect(result.status == 0 && result.stdout == "nothing to run\n", "\(result)")
        #expect(FileManager.default.fileExists(atPath: directory.path("durableq.sqlite")))
        #expect(try await durableq(["status", "--json"], in: directory.url.path).stdout == "[]\n")
    }

    /// The README's test command, which CI runs, never runs part of the suite: it refuses the
    /// setting that leaves out the tests needing a server, before installing or building anything.
    @Test func theTestCommandRefusesToLeaveOutTheTestsThatNeedAServer() async throws {
        let (status, error) = await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [packageRoot.appendingPathComponent(".ci/run").path]
            process.environment = ProcessInfo.processInfo.environment.merging([TestEnvironment.variable: TestEnvironment.localOnly]) { $1 }
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let exit: ProcessExit
            do { exit = try ProcessExit.run(process) } catch { return (Int32(-1), "\(error)") }
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (exit.wait(), text)
        }
        #expect(status == 2 && error.contains("runs every test"), "status \(status): \(error)")
    }

    @Test func theReadmeTourNamesEverySubcommandOfTheHelp() async throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let help = try await durableq(["--help"], in: FileManager.default.temporaryDirectory.path)
        #expect(help.status == 0)
        let section = try #require(help.stdout.components(separatedBy: "SUBCOMMANDS:").last)
        // Each command's line starts with two spaces and its name; wrapped help is indented further.
        let commands = section.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0.allSatisfy(\.isLowercase) }
        #expect(commands.count == 16, "\(commands)")
        for command in commands {
            #expect(readme.contains("`durableq \(command)"), "the README shows `durableq \(command)`")
        }
    }
}
