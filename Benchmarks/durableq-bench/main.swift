import DurableQueue
import Foundation
import NIOCore
import NIOPosix

// durableq-bench: DurableQueue's speed, measured, optionally as ratios to the C baseline in the same run.
//
//   swift run -c release durableq-bench [--n 10000] [--backlog 1000000] [--sync normal|full]
//       [--baseline path/to/baseline.c] [--only enqueue,batch,drain,scheduled,group,dependent,steps,fair,keyed,keys,latency,backlog,processes,throttle,open,idle]
//       [--repeat 3] [--dir DIR] [--postgres postgres://user@host:port/database] [--executor default|nio]
//
// Prints one JSON line per workload (with the SQLite version, journal mode and synchronous setting),
// then a table. Every run uses a fresh file in DIR (default .build/bench-runs/<time>, on disk). The
// rate workloads run --repeat times (each followed by the baseline's) and report the median run.
// With --postgres every workload runs on a fresh schema of that database instead of a file.
// With --executor nio (this process and its worker processes) Swift's global executor is NIO's
// event loops, as a server application may choose: PostgreSQL's replies then resume the waiting
// code on the thread that read them instead of another.
//
// The main thread only waits: the program runs in a task on Swift's global executor. (A
// synchronous main lets the binary run under valgrind 3.19, which crashes when an async main parks
// the main thread in dispatch_main.)

// Before any task runs, or NIO refuses.
if let flag = CommandLine.arguments.firstIndex(of: "--executor"), CommandLine.arguments.dropFirst(flag + 1).first == "nio",
    !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
{
    FileHandle.standardError.write(Data("could not make NIO's event loops the global executor\n".utf8))
    exit(1)
}

/// The program's error, handed from its task to the main thread.
nonisolated(unsafe) var failure: (any Error)?
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do { try await runBench() } catch { failure = error }
    finished.signal()
}
finished.wait()
if let failure {
    FileHandle.standardError.write(Data("durableq-bench: \(failure)\n".utf8))
    exit(1)
}
