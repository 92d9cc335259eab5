import DurableQueue
import Foundation

/// The whole program (see main.swift): reads the arguments, runs the chosen workloads, prints.
func runBench() async throws {
    let usage = """
        usage: durableq-bench [--n N] [--backlog N] [--sync normal|full] [--baseline baseline.c] [--only w1,w2] [--repeat R] [--dir DIR]
                              [--postgres postgres://user@host:port/database] [--executor default|nio]
        """

    var options: [String: String] = [:]
    var arguments = CommandLine.arguments.dropFirst()
    while let name = arguments.popFirst() {
        guard name.hasPrefix("--"), let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            exit(2)
        }
        options[String(name.dropFirst(2))] = value
    }
    let durability: Durability = options["sync"]?.lowercased() == "full" ? .powerLoss : .processCrash
    let executor = options["executor"] ?? "default"
    guard ["default", "nio"].contains(executor) else {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
    // NIO's event loops were made the global executor (`--executor nio`) before this task ran: see main.swift.

    if let path = options["worker"] {
        try await runWorker(path: path, durability: durability)
        exit(0)
    }

    let n = Int(options["n"] ?? "") ?? 10_000
    let backlogSize = Int(options["backlog"] ?? "") ?? 1_000_000
    let repeats = max(1, Int(options["repeat"] ?? "") ?? 3)
    let all = ["enqueue", "batch", "drain", "scheduled", "group", "dependent", "steps", "crowded", "fair", "keyed", "keys", "latency", "backlog", "processes", "throttle", "open", "idle"]
    // A transaction held open through a drain, and heartbeats' HOT updates: on PostgreSQL only.
    let chosen = Set(options["only"].map { $0.split(separator: ",").map(String.init) } ?? all + (options["postgres"] == nil ? [] : ["held", "heartbeats"]))
    let directory = URL(fileURLWithPath: options["dir"] ?? ".build/bench-runs/\(Int(Date().timeIntervalSince1970))", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

    let workloads = Workloads(directory: directory, durability: durability, n: n, postgres: options["postgres"], executor: executor)
    let settings = try await workloads.settings()
    let baseline = try options["baseline"].map {
        try Baseline(source: $0, directory: directory, synchronous: durability == .powerLoss ? "FULL" : "NORMAL")
    }

    var results: [Measurement] = []
    func report(_ measurement: Measurement) {
        print(measurement.jsonLine(settings: settings))
        results.append(measurement)
    }

    /// Runs `workload` `repeats` times, each run followed by the baseline's `baselineWorkload` when a
    /// baseline is given, and gives the median run with the spread (and the baseline's median and the
    /// ratio of the medians): on a shared machine one run can land on a slow or a fast moment.
    func medianRun(_ workload: () async throws -> Measurement, baselineWorkload: String? = nil) async throws -> Measurement {
        var runs: [Measurement] = []
        var baselineRates: [Double] = []
        for _ in 0..<repeats {
            runs.append(try await workload())
            if let baseline, let baselineWorkload { baselineRates.append(try baseline.rate(baselineWorkload, n: n)) }
        }
        var result = median(runs)
        if !baselineRates.isEmpty {
            let rate = baselineRates.sorted()[baselineRates.count / 2]
            result.extra += [("baseline_jobs_per_sec", rate), ("ratio_to_baseline", result.jobsPerSecond / rate)]
        }
        return result
    }

    if chosen.contains("enqueue") {
        report(try await medianRun({ try await workloads.enqueue(callers: 1) }, baselineWorkload: "enqueue"))
        report(try await medianRun({ try await workloads.enqueue(callers: 8) }, baselineWorkload: "enqueue"))
    }
    if chosen.contains("batch") { report(try await medianRun({ try await workloads.batch() }, baselineWorkload: "batch")) }
    if chosen.contains("drain") { report(try await medianRun({ try await workloads.drain() }, baselineWorkload: "drain")) }
    /// Reports `measurement` with its ratio to this run's drain of pending jobs, when that was
    /// measured: the drains of scheduled jobs and of a group have no baseline counterpart.
    func reportBesideTheDrain(_ measurement: Measurement) {
        var measurement = measurement
        if let pending = results.first(where: { $0.workload == "drain" })?.jobsPerSecond {
            measurement.extra.append(("ratio_to_drain", measurement.jobsPerSecond / pending))
        }
        report(measurement)
    }

    if chosen.contains("scheduled") { reportBesideTheDrain(try await medianRun({ try await workloads.drainScheduled() })) }
    if chosen.contains("group") { reportBesideTheDrain(try await medianRun({ try await workloads.drainGroup() })) }
    if chosen.contains("dependent") { reportBesideTheDrain(try await medianRun({ try await workloads.drainDependent() })) }
    if chosen.contains("steps") { reportBesideTheDrain(try await medianRun({ try await workloads.drainSteps() })) }
    if chosen.contains("crowded") { reportBesideTheDrain(try await medianRun({ try await workloads.drainCrowded() })) }
    if chosen.contains("fair") {
        reportBesideTheDrain(try await medianRun({ try await workloads.drainFair(interleaved: true) }))
        reportBesideTheDrain(try await medianRun({ try await workloads.drainFair(interleaved: false) }))
    }
    if chosen.contains("keyed") { reportBesideTheDrain(try await medianRun({ try await workloads.drainKeyed() })) }
    if chosen.contains("keys") { report(try await workloads.keyedBacklog(backlogSize)) }
    if chosen.contains("latency") { report(try await workloads.latency()) }
    if chosen.contains("processes") {
        // One and two processes in turns, so that both meet the same moments of the machine.
        var ones: [Measurement] = []
        var twos: [Measurement] = []
        for _ in 0..<repeats {
            ones.append(try await workloads.processes(1))
            twos.append(try await workloads.processes(2))
        }
        let one = median(ones)
        var two = median(twos)
        two.extra.append(("ratio_to_one_process", two.jobsPerSecond / one.jobsPerSecond))
        report(one)
        report(two)
    }
    if chosen.contains("throttle") { report(try await workloads.throttle()) }
    if chosen.contains("open") { report(try await workloads.openToFirstClaim(rounds: max(5, repeats))) }
    if chosen.contains("idle") { report(try await workloads.idle()) }
    if chosen.contains("held") {
        var held: [Measurement] = []
        for _ in 0..<repeats { held.append(try await workloads.held()) }
        report(median(held))
    }
    if chosen.contains("heartbeats") { report(try await workloads.heartbeats()) }
    if chosen.contains("backlog") {
        var backlog = try await workloads.backlog(backlogSize, rounds: repeats)
        let empty = results.first { $0.workload == "drain" }?.jobsPerSecond
        let emptyEnqueue = results.first { $0.workload == "enqueue" }?.jobsPerSecond
        if let empty, let drain = backlog.extra.first(where: { $0.0 == "drain_jobs_per_sec" })?.1 {
            backlog.extra.append(("drain_ratio_to_empty", drain / empty))
        }
        if let emptyEnqueue, let enqueue = backlog.extra.first(where: { $0.0 == "enqueue_jobs_per_sec" })?.1 {
            backlog.extra.append(("enqueue_ratio_to_empty", enqueue / emptyEnqueue))
        }
        report(backlog)
    }

    print("")
    print("SQLite \(settings.version), journal_mode=\(settings.journalMode), synchronous=\(settings.synchronous), N=\(n), executor=\(executor)")
    for result in results {
        let numbers = result.extra.map { "\($0.0)=\(String(format: "%.2f", $0.1))" }.joined(separator: " ")
        print(
            result.workload.padding(toLength: 22, withPad: " ", startingAt: 0)
                + String(format: "%10.0f jobs/s  ", result.jobsPerSecond) + numbers)
    }
}
