import Foundation

/// An executable built beside the tests (by default `durableq-test-worker`), started as a child
/// process. Not Sendable: one test owns it.
final class WorkerProcess {
    let process = Process()
    private let output = Pipe()

    /// The directory holding the built products (`.build/<triple>/debug` on Linux).
    static var productsDirectory: URL {
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                return bundle.bundleURL.deletingLastPathComponent()
            }
        #endif
        return Bundle.main.bundleURL
    }

    /// Starts `executable` with `arguments` in `directory` (default: the current one); its standard
    /// error goes to `errorLog` (appended), or nowhere.
    init(
        _ arguments: [String], executable: String = "durableq-test-worker", directory: String? = nil,
        errorLog: String? = nil
    ) throws {
        process.executableURL = Self.productsDirectory.appendingPathComponent(executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = output
        if let errorLog {
            if !FileManager.default.fileExists(atPath: errorLog) { _ = FileManager.default.createFile(atPath: errorLog, contents: nil) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorLog))
            try handle.seekToEnd()
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
    }

    /// Kills the worker with SIGKILL: no clean-up of any kind runs.
    func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Reads the worker's output until it has printed `line`; false if it exited first.
    ///
    /// The blocking reads run on a dispatch thread, not on the cooperative pool.
    func waitForLine(_ line: String) async -> Bool {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var buffer = ""
                while true {
                    let data = handle.availableData
                    if data.isEmpty { return continuation.resume(returning: false) }
                    buffer += String(decoding: data, as: UTF8.self)
                    if buffer.split(separator: "\n").contains(where: { $0 == line }) {
                        return continuation.resume(returning: true)
                    }
                }
            }
        }
    }

    /// Reads the worker's standard output until it closes it (normally: until it exits).
    func readOutput() async -> String {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            }
        }
    }

    /// Waits for the worker to exit and returns its exit status.
    func waitForExit() async -> Int32 {
        let process = process
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }
}
