// A second process for the tests: it works on the same file as the test, through the same store.
// Not a product. Usage:
//
//   durableq-test-worker enqueue PATH COUNT
//       Prints "ready", enqueues COUNT jobs on queue "shared", one transaction each, prints "done".
import DurableQueue
import Foundation

/// Milliseconds since 1970 by the wall clock.
func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

/// Writes `line` and a newline to standard output at once, so the parent sees it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
do {
    guard arguments.count == 4, arguments[1] == "enqueue", let count = Int(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: durableq-test-worker enqueue PATH COUNT\n".utf8))
        exit(2)
    }
    let store = try SQLiteJobStore(path: arguments[2])
    say("ready")
    for index in 0..<count {
        _ = try await store.enqueue(
            NewJob(queue: "shared", kind: "from-worker", input: "{\"index\":\(index)}"), now: nowMilliseconds())
    }
    say("done")
} catch {
    FileHandle.standardError.write(Data("durableq-test-worker: \(error)\n".utf8))
    exit(1)
}
