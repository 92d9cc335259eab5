import ArgumentParser

/// A duration on the command line: a whole number and a unit, `ms`, `s`, `m`, `h`, `d` or `w`
/// (`500ms`, `30s`, `7d`).
struct DurationArgument: ExpressibleByArgument, Sendable {
    /// The parsed duration.
    var duration: Duration
    /// The text it was parsed from (for help and messages).
    var text: String

    init(_ duration: Duration) {
        self.duration = duration
        self.text = "\(duration.components.seconds)s"
    }

    init?(argument: String) {
        let units: [(suffix: String, seconds: Int64, milliseconds: Int64)] = [
            ("ms", 0, 1), ("s", 1, 0), ("m", 60, 0), ("h", 3600, 0), ("d", 86_400, 0), ("w", 604_800, 0),
        ]
        for unit in units where argument.hasSuffix(unit.suffix) {
            let number = argument.dropLast(unit.suffix.count)
            // "5ms" also ends in "s": only a number may precede the unit.
            guard !number.isEmpty, number.allSatisfy(\.isASCII), let value = Int64(number), value >= 0,
                value <= Int64.max / 604_800_000
            else { continue }
            self.duration = .seconds(value * unit.seconds) + .milliseconds(value * unit.milliseconds)
            self.text = argument
            return
        }
        return nil
    }

    var defaultValueDescription: String { text }
}
