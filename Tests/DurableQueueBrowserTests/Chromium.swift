import DurableQueueTestSupport
import Foundation

/// Debian's `chromium`, headless, as a child process: a page's screenshot, or its DOM once its
/// scripts ran.
struct Chromium {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let executable: String
    let profile: TemporaryDirectory

    /// The browser on this machine (`DQ_CHROMIUM`, else `chromium` or `chromium-browser` on PATH).
    ///
    /// - Throws: when there is none, saying how to install it: a browser test never passes without one.
    static func find() throws -> Chromium {
        let environment = ProcessInfo.processInfo.environment
        let candidates =
            [environment["DQ_CHROMIUM"]].compactMap { $0 }
            + (environment["PATH"] ?? "/usr/bin").split(separator: ":").flatMap { directory in
                ["chromium", "chromium-browser"].map { "\(directory)/\($0)" }
            }
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "no Chromium: install Debian's `chromium` package (.ci/run does) or set DQ_CHROMIUM")
        }
        return Chromium(executable: executable, profile: try TemporaryDirectory())
    }

    /// Saves a screenshot of `url` at `width`×`height` CSS pixels as a PNG at `path`.
    func screenshot(_ url: String, to path: String, width: Int, height: Int) async throws {
        _ = try await run(["--window-size=\(width),\(height)", "--screenshot=\(path)", url])
        guard FileManager.default.fileExists(atPath: path) else { throw Failure(description: "chromium wrote no screenshot of \(url)") }
    }

    /// The DOM of `url` once it loaded and its scripts ran. (Not with a virtual time budget: that
    /// never ends while the page holds its live-update connection open.)
    func renderedDOM(_ url: String) async throws -> String {
        try await run(["--timeout=15000", "--dump-dom", url])
    }

    /// Runs the browser with `arguments`; its standard output. Killed after a minute.
    private func run(_ arguments: [String]) async throws -> String {
        let output = profile.path("output-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw Failure(description: "could not create \(output)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(profile.path("profile"))",
            ] + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                throw Failure(description: "chromium \(arguments.joined(separator: " ")) did not finish within a minute")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "chromium \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
        }
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}

/// A PNG file's size in pixels, read from its header.
struct PNGImage {
    let width: Int
    let height: Int

    init(contentsOf path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Chromium.Failure(description: "\(path) is not a PNG")
        }
        func number(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        width = number(at: 16)
        height = number(at: 20)
    }
}
