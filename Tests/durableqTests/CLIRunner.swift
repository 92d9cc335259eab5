import DurableQueueTestSupport
import Foundation
import Testing

/// What a run of the built `durableq` printed and how it exited.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }

    /// Standard output parsed as a JSON object.
    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "not a JSON object: \(stdout)")
    }

    /// Standard output parsed as a JSON array of objects.
    func objects() throws -> [[String: Any]] {
        try #require(try json() as? [[String: Any]], "not a JSON array of objects: \(stdout)")
    }
}

/// Runs the built `durableq` with `arguments` in `directory` and waits for it to exit.
func durableq(_ arguments: [String], in directory: String) async throws -> CLIResult {
    try await run(WorkerProcess.productsDirectory.appendingPathComponent("durableq").path, arguments, in: directory)
}

/// Runs `executable` with `arguments` in `directory` and waits for it to exit.
func run(_ executable: String, _ arguments: [String], in directory: String) async throws -> CLIResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    let exit = try ProcessExit.run(process)
    // If the test is cancelled (its time limit), the child is killed so that the waits end and the
    // test fails instead of hanging the whole run.
    let pid = process.processIdentifier
    return await withTaskCancellationHandler {
        // Read both pipes at once so that neither can fill up and stall the child.
        async let stderr = onOwnThread { errors.fileHandleForReading.readDataToEndOfFile() }
        let stdout = await onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
        let status = await exit.status()
        return CLIResult(status: status, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: await stderr, as: UTF8.self))
    } onCancel: {
        _ = kill(pid, SIGKILL)
    }
}
