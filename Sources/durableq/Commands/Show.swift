import ArgumentParser
import DurableQueue
import DurableQueueInspection
import Foundation

/// `durableq show ID`: one job's row, output or error, progress, full history, dependencies and steps.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one job: its row, output or error, progress and history.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The job's id.")
    var id: Int64

    func run() async throws {
        let store = try await database.openForReading().reader
        let job = try await store.job(JobID(id))
        let history = try await store.history(of: JobID(id))
        let steps = try await store.steps(of: JobID(id))
        let dependencies = try await store.dependencies(of: JobID(id))
        if output.json { return job.json(history: history, steps: steps, dependencies: dependencies).print() }
        var fields: [(String, String)] = [
            ("id", String(job.id.rawValue)), ("queue", job.queue), ("kind", Formatting.kind(job.kind, version: job.version)),
            ("state", job.state.rawValue),
            ("priority", Formatting.priority(job.priority)),
            ("attempts", job.maxAttempts.map { "\(job.attempts) of \($0)" } ?? "\(job.attempts) (no limit)"),
            ("progress", Formatting.percent(job.progress)), ("created", Formatting.timestamp(job.createdAt)),
            ("run at", Formatting.timestamp(job.runAt)), ("updated", Formatting.timestamp(job.updatedAt)),
        ]
        if let started = job.startedAt { fields.append(("started", Formatting.timestamp(started))) }
        if let finished = job.finishedAt { fields.append(("finished", Formatting.timestamp(finished))) }
        if !job.tags.isEmpty { fields.append(("tags", job.tags.joined(separator: ", "))) }
        if let key = job.uniqueKey { fields.append(("unique key", key)) }
        if job.cancelRequested { fields.append(("cancel", "requested")) }
        if let owner = job.leaseOwner { fields.append(("worker", owner)) }
        if job.state == .handedOff, let handOff = job.handOff { fields.append(("handed off", Formatting.handOff(handOff))) }
        if job.state == .waiting, let signal = job.waitingFor {
            fields.append(("waiting for", Formatting.wait(signal: signal, deadline: job.waitDeadline)))
        }
        if let checkpoint = job.checkpoint { fields.append(("checkpoint", "\(checkpoint.count) bytes")) }
        fields.append(("input", job.input))
        if let output = job.output { fields.append(("output", output)) }
        if let error = job.error { fields.append(("error", Formatting.oneLine(error.description, limit: 2000))) }
        let width = fields.map(\.0.count).max() ?? 0
        for (name, value) in fields { Terminal.print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
        Terminal.print()
        Terminal.print("history")
        var table = Table(header: ["AT", "FROM", "TO", "ATTEMPT", "WORKER", "REASON"])
        for event in history {
            table.rows.append([
                Formatting.timestamp(event.at), event.from?.rawValue ?? "-", event.to.rawValue, String(event.attempt),
                event.worker ?? "-", Formatting.oneLine(event.reason ?? ""),
            ])
        }
        table.print()
        if !dependencies.isEmpty {
            Terminal.print()
            Terminal.print("dependencies")
            var edges = Table(header: ["NAME", "JOB", "ON FAILURE", "OUTCOME"])
            for dependency in dependencies {
                edges.rows.append([dependency.name, String(dependency.job.rawValue), dependency.onFailure.rawValue, dependency.outcome?.rawValue ?? "waiting"])
            }
            edges.print()
        }
        guard !steps.isEmpty else { return }
        Terminal.print()
        Terminal.print("steps")
        var stepTable = Table(header: ["RECORDED", "NAME", "ATTEMPT", "OUTPUT"])
        for step in steps {
            stepTable.rows.append([Formatting.timestamp(step.recordedAt), step.name, String(step.attempt), Formatting.oneLine(step.output)])
        }
        stepTable.print()
    }
}
