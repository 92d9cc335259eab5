import DurableQueue
import DurableQueueTestSupport
import Foundation
import Testing

/// A job for the schedules the CLI tests list.
private struct Report: Job {
    static let name = "report"
    func run(_ input: String, context: JobContext) async throws -> String { input }
}

@Suite(.timeLimit(.minutes(2))) struct CLIScheduleTests {
    @Test func schedulesAreListedTheirNextTicksShownAndPausedAndResumed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let here = directory.url.path
        do {
            let queue = try JobQueue(path: directory.path("durableq.sqlite"))
            try await queue.schedules.save(name: "nightly", Report.self, input: "day", rule: .cron("0 3 * * *", timeZone: "Europe/Paris"))
            try await queue.schedules.save(
                name: "sync", Report.self, input: "all", options: EnqueueOptions(queue: "io"), rule: .every(.minutes(15)))
        }

        let list = try await durableq(["schedules"], in: here)
        #expect(list.status == 0, "\(list)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0].hasPrefix("NAME"), "\(list.stdout)")
        #expect(lines[1].contains("nightly") && lines[1].contains("cron 0 3 * * * (Europe/Paris)") && lines[1].contains("active"))
        #expect(lines[2].contains("sync") && lines[2].contains("every 15m") && lines[2].contains("io"))

        let next = try await durableq(["schedules", "next", "nightly", "--count", "3"], in: here)
        let ticks = next.stdout.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(ticks.count == 3, "\(next)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var paris = Calendar(identifier: .gregorian)
        paris.timeZone = TimeZone(identifier: "Europe/Paris")!
        for tick in ticks {
            let date = try #require(formatter.date(from: tick), "\(tick)")
            #expect(paris.component(.hour, from: date) == 3 && paris.component(.minute, from: date) == 0, "\(tick)")
        }

        #expect(try await durableq(["schedules", "pause", "sync"], in: here).stdout == "schedule sync: paused\n")
        let paused = try await durableq(["schedules", "list", "--json"], in: here).objects()
        #expect(paused.map { $0["name"] as? String } == ["nightly", "sync"])
        #expect(paused.map { $0["paused"] as? Bool } == [false, true])
        #expect(paused.allSatisfy { ($0["next_tick"] as? String)?.hasSuffix("Z") == true })
        #expect(try await durableq(["schedules", "resume", "sync"], in: here).status == 0)
        let view = try await run("/usr/bin/sqlite3", ["durableq.sqlite", "SELECT name, status, rule FROM schedule_list"], in: here)
        #expect(view.stdout == "nightly|active|cron 0 3 * * * (Europe/Paris)\nsync|active|every 900 s\n", "\(view)")

        let missing = try await durableq(["schedules", "pause", "nope"], in: here)
        #expect(missing.status == 1 && missing.stderr.contains("no schedule named 'nope'"), "\(missing)")
        #expect(try await durableq(["schedules", "next", "nope"], in: here).status == 1)
    }
}
