import Foundation
import Synchronization

/// An executable built beside the tests (by default `durableq-test-worker`), started as a child
/// process. Not Sendable: one test owns it.
package final class WorkerProcess {
    package let process = Process()
    private let output = Pipe()
    private let pendingOutput = PendingOutput()
    private let exited: ProcessExit

    /// The directory holding the built products (`.build/<triple>/debug` on Linux).
    package static var productsDirectory: URL {
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                return bundle.bundleURL.deletingLastPathComponent()
            }
        #endif
        return Bundle.main.bundleURL
    }

    /// Starts `executable` with `arguments` in `directory` (default: the current one); its standard
    /// error goes to `errorLog` (appended), or nowhere. With `fileSizeLimit` (in KiB) the worker
    /// cannot grow any file past that size: a write beyond fails (EFBIG) as on a full disk, and the
    /// SIGXFSZ that would kill it is ignored. With `clockOffset` (libfaketime's `+10m`, `-10m`) the
    /// worker's wall clock is that far off (Debian's `faketime`; its monotonic clocks are left alone).
    /// With `namespace` it runs in that network namespace: another host, as far as the network goes.
    /// `environment` is added to the worker's environment (the crash VFS reads its settings there).
    package init(
        _ arguments: [String], executable: String = "durableq-test-worker", directory: String? = nil,
        errorLog: String? = nil, fileSizeLimit: Int? = nil, clockOffset: String? = nil, namespace: NetworkNamespace? = nil,
        environment: [String: String] = [:]
    ) throws {
        let path = Self.productsDirectory.appendingPathComponent(executable)
        if let namespace {
            process.executableURL = URL(fileURLWithPath: namespace.prefix[0])
            process.arguments = Array(namespace.prefix.dropFirst()) + [path.path] + arguments
        } else if let clockOffset {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/faketime")
            process.arguments = ["-m", "-f", clockOffset, path.path] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["FAKETIME_DONT_FAKE_MONOTONIC": "1"]) { $1 }
        } else if let fileSizeLimit {
            // An ignored signal stays ignored across exec; bash's `ulimit -f` counts KiB.
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(fileSizeLimit); exec \"$0\" \"$@\"", path.path] + arguments
        } else {
            process.executableURL = path
            process.arguments = arguments
        }
        if !environment.isEmpty {
            process.environment = (process.environment ?? ProcessInfo.processInfo.environment).merging(environment) { $1 }
        }
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
        exited = try ProcessExit.run(process)
    }

    /// Kills the worker with SIGKILL: no clean-up of any kind runs.
    package func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Freezes the worker with SIGSTOP, as a VM pause or an app suspension would: it runs nothing, its
    /// timers included, until ``thaw()``.
    package func freeze() {
        _ = Foundation.kill(process.processIdentifier, SIGSTOP)
    }

    /// Lets a frozen worker run again (SIGCONT).
    package func thaw() {
        _ = Foundation.kill(process.processIdentifier, SIGCONT)
    }

    /// Reads the worker's output until it has printed `line`; false if it exited first.
    package func waitForLine(_ line: String) async -> Bool {
        await nextLine { $0 == line } != nil
    }

    /// Reads the worker's output until it prints a line `matching` returns true for, and returns that
    /// line; nil if the worker exited first. Lines read past it are kept for the next call.
    package func nextLine(matching: @escaping @Sendable (String) -> Bool) async -> String? {
        let handle = output.fileHandleForReading
        let pending = pendingOutput
        return await blocking {
            while true {
                if let line = pending.takeLine(matching: matching) { return line }
                let data = handle.availableData
                if data.isEmpty { return nil }
                pending.append(data)
            }
        }
    }

    /// Reads the worker's standard output until it closes it (normally: until it exits), and returns
    /// all of it not yet consumed by ``nextLine(matching:)``.
    package func readOutput() async -> String {
        let handle = output.fileHandleForReading
        let pending = pendingOutput
        return await blocking {
            pending.append(handle.readDataToEndOfFile())
            return pending.takeAll()
        }
    }

    /// Waits for the worker to exit and returns its exit status (killing it if the test is
    /// cancelled meanwhile: ``ProcessExit/status()``).
    package func waitForExit() async -> Int32 {
        await exited.status()
    }

    /// Runs `wait`, which blocks until the worker does something, on a thread of its own. If the test
    /// is cancelled meanwhile (its time limit), the worker is killed so that the wait ends and the
    /// test fails instead of hanging.
    private func blocking<Value: Sendable>(_ wait: @escaping @Sendable () -> Value) async -> Value {
        let pid = process.processIdentifier
        return await withTaskCancellationHandler {
            await onOwnThread(wait)
        } onCancel: {
            _ = Foundation.kill(pid, SIGKILL)
        }
    }
}

/// Output read from a worker but not yet consumed, as complete lines and an unfinished tail.
private final class PendingOutput: Sendable {
    private let state = Mutex((lines: [String](), tail: ""))

    func append(_ data: Data) {
        state.withLock { state in
            let parts = (state.tail + String(decoding: data, as: UTF8.self)).split(separator: "\n", omittingEmptySubsequences: false)
            state.lines += parts.dropLast().map(String.init)
            state.tail = String(parts.last ?? "")
        }
    }

    /// Removes and returns everything, lines and tail.
    func takeAll() -> String {
        state.withLock { state in
            defer { state = ([], "") }
            return (state.lines.map { $0 + "\n" }.joined()) + state.tail
        }
    }

    /// Removes and returns the lines up to the first one `matching` accepts; nil (nothing removed) if none does.
    func takeLine(matching: (String) -> Bool) -> String? {
        state.withLock { state in
            guard let index = state.lines.firstIndex(where: matching) else {
                return nil
            }
            let line = state.lines[index]
            state.lines.removeFirst(index + 1)
            return line
        }
    }
}
