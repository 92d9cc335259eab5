import ArgumentParser
import DurableQueue
import DurableQueueInspection

/// `durableq key-limits QUEUE [PATTERN] [options]`: shows or changes a queue's limits per partition
/// key — those of every key (`*`) or of the keys a pattern names (an override) — durably, for
/// every process.
struct KeyLimitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key-limits",
        abstract: "Show or change a queue's limits per partition key (every key: '*'; some: 'acme' or 'premium:*').",
        discussion: """
            Without a pattern, lists the queue's limits per key. With one, sets the limits of the keys it names
            (every option left out means none) or, with --remove, takes the override away: those keys then have the
            limits of '*'. The most specific pattern wins: an exact key, then the longest prefix.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The queue's name.")
    var queue: String

    @Argument(help: "'*' for every key, an exact key, or a prefix ending in '*'.")
    var pattern: String?

    @Option(help: "How many jobs of a key may run at once (0: no limit).")
    var concurrency: Int?

    @Option(help: "The least time between two starts of a key (500ms, 2s, 1m…).")
    var throttle: DurationArgument?

    @Option(help: "Where the throttle is measured from: start (default) or end.")
    var from: Throttle.Measurement = .start

    @Option(help: "The most starts of a key per window: COUNT/WINDOW (10/1m).")
    var rate: RateArgument?

    @Flag(help: "Remove the pattern's override.")
    var remove = false

    func validate() throws {
        if pattern == nil && (concurrency != nil || throttle != nil || rate != nil || remove) {
            throw ValidationError("name a pattern ('*' for every key) to change limits")
        }
        if remove && (concurrency != nil || throttle != nil || rate != nil) {
            throw ValidationError("--remove takes no limits")
        }
        if remove && pattern == "*" { throw ValidationError("'*' has no override to remove; set its limits instead") }
    }

    func run() async throws {
        let jobs = try await database.openQueue(create: false)
        let settings: QueueConfiguration
        if let pattern {
            let limits = KeyLimits(
                concurrencyLimit: concurrency ?? 0, throttle: throttle.map { Throttle($0.duration, measuredFrom: from) },
                rateLimit: rate.map { RateLimit($0.count, per: $0.window) })
            let remove = remove
            settings = try await jobs.queues.update(queue) { queue in queue[keys: pattern] = remove ? nil : limits }
        } else {
            guard let stored = try await jobs.queues.configuration(of: queue) else {
                throw ValidationError("no queue is named '\(queue)'")
            }
            settings = stored
        }
        for line in Self.lines(settings) { Terminal.print(line) }
    }

    /// A queue's limits per key as a table: `*` first, then each override by pattern.
    static func lines(_ queue: QueueConfiguration) -> [String] {
        var table = Table(header: ["PATTERN", "CONCURRENCY", "THROTTLE", "RATE"])
        for (pattern, limits) in [("*", queue.keyLimits)] + queue.keyOverrides.sorted(by: { $0.key < $1.key }) {
            table.rows.append([
                pattern, limits.concurrencyLimit == 0 ? "-" : String(limits.concurrencyLimit),
                limits.throttle.map { "\(Formatting.duration($0.interval)) from \($0.measuredFrom.rawValue)" } ?? "-",
                limits.rateLimit.map { "\($0.count) per \(Formatting.duration($0.window))" } ?? "-",
            ])
        }
        return table.lines
    }
}

/// A rate limit on the command line: `COUNT/WINDOW` (`10/1m`, `3/500ms`).
struct RateArgument: ExpressibleByArgument, Sendable {
    var count: Int
    var window: Duration

    init?(argument: String) {
        let parts = argument.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let window = DurationArgument(argument: String(parts[1])),
            window.duration > .zero
        else { return nil }
        self.count = count
        self.window = window.duration
    }
}

extension Throttle.Measurement: ExpressibleByArgument {}
