import Foundation

/// The C baseline (`baseline.c`): compiled with gcc, run on the same machine in the same run.
struct Baseline {
    let binary: URL
    let directory: URL
    let synchronous: String

    /// Compiles `source` into `directory`.
    init(source: String, directory: URL, synchronous: String) throws {
        self.directory = directory
        self.synchronous = synchronous
        binary = directory.appendingPathComponent("baseline")
        let status = try Self.execute("/usr/bin/env", ["gcc", "-O2", "-o", binary.path, source, "-lsqlite3"]).status
        guard status == 0 else { throw BenchError("could not compile \(source) with gcc (exit \(status))") }
    }

    /// The baseline's jobs per second for `workload` (enqueue, batch or drain) with `n` jobs.
    func rate(_ workload: String, n: Int) throws -> Double {
        let database = directory.appendingPathComponent("baseline-\(workload)-\(UUID().uuidString.prefix(8)).sqlite").path
        let (status, output) = try Self.execute(
            binary.path, ["--workload", workload, "--db", database, "--n", String(n), "--sync", synchronous])
        guard status == 0, let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let rate = object["jobs_per_sec"] as? Double
        else { throw BenchError("the baseline's \(workload) run failed (exit \(status)): \(output)") }
        return rate
    }

    private static func execute(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A benchmark failure, printed before exiting with status 1.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
